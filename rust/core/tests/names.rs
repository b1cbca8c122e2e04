//! The public names the core spells for the Python API and the wire
//! format (docs/api.md, `koudian.protocol`): each is written out here, so
//! that renaming a Rust variant cannot silently change one.

use koudian_core::game::Pending;
use koudian_core::hand::MeldKind;
use koudian_core::score::{KongKind, Pattern, PaymentReason};
use koudian_core::tile::Tile;

#[test]
fn pattern_codes_are_the_documented_names() {
    use Pattern::*;
    let want = [
        (SelfDraw, "self_draw"),
        (KongBloom, "kong_bloom"),
        (RobbingKong, "robbing_kong"),
        (FullFlush, "full_flush"),
        (PureStraight, "pure_straight"),
        (SevenPairs, "seven_pairs"),
        (GoldenSevenPairs, "golden_seven_pairs"),
        (LuxurySevenPairs, "luxury_seven_pairs"),
        (LuxuryGoldenSevenPairs, "luxury_golden_seven_pairs"),
        (BasicHand, "basic_hand"),
        (AllTriplets, "all_triplets"),
        (Terminals, "terminals"),
        (FlushTriplets, "flush_triplets"),
        (TwoFiveEight, "two_five_eight"),
        (FlushSevenPairs, "flush_seven_pairs"),
        (Heavenly, "heavenly"),
        (Earthly, "earthly"),
        (Root(Tile::M1), "root"),
        (Root(Tile::from_notation("7z").unwrap()), "root"),
    ];
    for (p, code) in want {
        assert_eq!(p.code(), code, "{p:?}");
    }
}

#[test]
fn payment_codes_are_the_documented_names() {
    let kong = KongKind::Exposed;
    let t = Tile::M1;
    let want = [
        (PaymentReason::Win, "win"),
        (PaymentReason::WinCovered { share_of: 2 }, "win_covered"),
        (PaymentReason::KongGiverPaysBloom, "kong_giver_pays_bloom"),
        (PaymentReason::DealerBonus, "dealer_bonus"),
        (
            PaymentReason::Kong {
                tile: t,
                kind: kong,
            },
            "kong",
        ),
        (
            PaymentReason::KongCovered {
                tile: t,
                kind: kong,
                share_of: 1,
            },
            "kong_covered",
        ),
        (PaymentReason::Chajiao, "chajiao"),
        (PaymentReason::LeavePenalty, "leave_penalty"),
    ];
    for (r, code) in want {
        assert_eq!(r.code(), code, "{r:?}");
    }
}

#[test]
fn meld_and_pending_names_are_the_documented_names() {
    let melds = [
        (MeldKind::Pong, "pong"),
        (MeldKind::ExposedKong, "exposed_kong"),
        (MeldKind::AddedKong, "added_kong"),
        (MeldKind::ConcealedKong, "concealed_kong"),
    ];
    for (k, name) in melds {
        assert_eq!(k.name(), name);
    }
    let t = Tile::from_notation("5p").unwrap();
    let pending = [
        (Pending::None, "none", (None, None)),
        (Pending::Turn, "turn", (None, None)),
        (
            Pending::Discard { from: 1, tile: t },
            "discard",
            (Some(1), Some(t)),
        ),
        (
            Pending::AddedKong { from: 3, tile: t },
            "added_kong",
            (Some(3), Some(t)),
        ),
    ];
    for (p, name, answered) in pending {
        assert_eq!(p.name(), name);
        assert_eq!(p.answered(), answered);
    }
}
