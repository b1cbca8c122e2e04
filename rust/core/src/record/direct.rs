//! The packed observation written straight from a seat's view: the
//! planes of [`encode`](crate::game::encode)'s version 2 in
//! [`pack`](super::pack)'s layout without the 2,244-value row between
//! them. The recorder writes one per recorded decision; it must give the
//! bytes [`pack_planes`](super::pack_planes) gives for the encoder's row,
//! which the tests check on every seat of every position of many hands.

use super::pack::{
    form_bytes, gather_bits, pack_nibbles, unfit, word, Form, BITS_BYTES, FORMS_V2, N_PLANES_V2,
    ONES,
};
use super::pack::{pack_row, FORMS_LOOKAHEAD, LOOKAHEAD_BYTES};
use super::{OBS_BYTES, OBS_BYTES_V2};
use crate::agent::greedy::lookahead::{Lookahead, LOOKAHEAD_PLANES};
use crate::error::Error;
use crate::game::encode::{View, RECENT_DISCARDS};
use crate::game::observation::Pending;
use crate::tile::KINDS;

/// Byte offsets of every plane in a packed version 2 row.
const AT: [usize; N_PLANES_V2 + 1] = {
    let mut at = [0; N_PLANES_V2 + 1];
    let mut p = 0;
    while p < N_PLANES_V2 {
        at[p + 1] = at[p] + form_bytes(FORMS_V2[p]);
        p += 1;
    }
    at
};

/// The planes of each form the writer below stores, as the layout has
/// them (a change to the layout that it misses fails to compile).
const _: () = {
    let bits = [0, 1, 2, 3, 4, 13, 15, 29, 30, 31, 32, 33];
    let nibbles = [5, 6, 7, 8, 9, 10, 11, 12, 14];
    let mut i = 0;
    while i < bits.len() {
        assert!(matches!(FORMS_V2[bits[i]], Form::Bits));
        i += 1;
    }
    let mut i = 0;
    while i < nibbles.len() {
        assert!(matches!(FORMS_V2[nibbles[i]], Form::Nibbles));
        i += 1;
    }
    let mut p = 16;
    while p < 29 {
        assert!(matches!(FORMS_V2[p], Form::Constant));
        p += 1;
    }
    let mut p = 34;
    while p < 42 {
        assert!(matches!(FORMS_V2[p], Form::Constant));
        p += 1;
    }
    while p < N_PLANES_V2 {
        assert!(matches!(FORMS_V2[p], Form::OneHot));
        p += 1;
    }
    assert!(AT[N_PLANES_V2] == OBS_BYTES_V2 && N_PLANES_V2 == 42 + 4 * RECENT_DISCARDS);
};

/// Stores the 0/1 plane `p` whose set kinds are the bits of `mask`.
#[inline(always)]
fn put_bits(out: &mut [u8; OBS_BYTES_V2], p: usize, mask: u64) {
    out[AT[p]..AT[p] + BITS_BYTES].copy_from_slice(&mask.to_le_bytes()[..BITS_BYTES]);
}

/// Stores the count plane `p`, or the error if a count does not fit.
#[inline(always)]
fn put_nibbles(out: &mut [u8; OBS_BYTES_V2], p: usize, row: &[u8; KINDS]) -> Result<(), Error> {
    match pack_nibbles(row, &mut out[AT[p]..AT[p + 1]]) {
        true => Ok(()),
        false => Err(unfit(p, Form::Nibbles)),
    }
}

/// Writes the packed version 3 observation of `o` into `out` (every
/// byte): the packed version 2 planes ([`pack_view`]), then the packed
/// look-ahead planes.
pub(crate) fn pack_view_v3(o: &impl View, out: &mut [u8; OBS_BYTES]) -> Result<(), Error> {
    const _: () = assert!(OBS_BYTES == OBS_BYTES_V2 + LOOKAHEAD_BYTES);
    let (v2, ahead) = out.split_at_mut(OBS_BYTES_V2);
    pack_view(o, v2.try_into().expect("the version 2 bytes"))?;
    let mut la: Lookahead = [[0; KINDS]; LOOKAHEAD_PLANES];
    o.lookahead(&mut la);
    pack_row(&FORMS_LOOKAHEAD, la.as_flattened(), ahead).map_err(|e| match e {
        // The planes are numbered from the row's start.
        Error::InvalidArgument(_) => Error::InvalidArgument(format!(
            "a look-ahead plane (from plane {N_PLANES_V2}) does not fit its packed form"
        )),
        e => e,
    })
}

/// Writes the packed version 2 observation of `o` into `out` (every byte):
/// what packing the encoder's row gives, or the error packing it gives.
pub(crate) fn pack_view(o: &impl View, out: &mut [u8; OBS_BYTES_V2]) -> Result<(), Error> {
    let me = o.seat();
    let rel = |s: u8| (s.wrapping_sub(me) & 3) as usize;
    // Planes 0-3: the kinds held more than j times, eight kinds a word.
    let c = o.concealed();
    for j in 0..4u8 {
        let mut held = u64::from(c[32] > j) << 32 | u64::from(c[33] > j) << 33;
        for q in 0..4 {
            let w = word(&c, 8 * q);
            // Byte by byte, `n > j` is the top bit of `(n & 127) + 127 - j`
            // (no carry between bytes) or of `n` itself.
            let more = (((w & (0x7F * ONES)) + u64::from(0x7F - j) * ONES) | w) >> 7 & ONES;
            held |= gather_bits(more) << (8 * q);
        }
        put_bits(out, usize::from(j), held);
    }
    let (pending, drawn) = o.pending_drawn();
    put_bits(out, 4, drawn.map_or(0, |t| 1 << t.index()));
    // Planes 5-8 (tiles melded by seat r) and 30-33 (melds claimed from
    // seat r's discards).
    let mut melded = [[0u8; KINDS]; 4];
    let mut claimed = [0u64; 4];
    o.each_meld(|s, m| {
        if let Some(t) = m.tile {
            let v = &mut melded[rel(s)][t.index()];
            *v = v.saturating_add(m.kind.size());
            if let Some(from) = m.from {
                claimed[rel(from)] |= 1 << t.index();
            }
        }
    });
    let rows = o.discard_rows();
    for r in 0..4 {
        put_nibbles(out, 5 + r, &melded[r])?;
        put_bits(out, 30 + r, claimed[r]);
    }
    for (s, pond) in rows.pond.iter().enumerate() {
        put_nibbles(out, 9 + rel(s as u8), pond)?;
    }
    put_bits(
        out,
        13,
        o.wilds().kinds().fold(0, |m, t| m | 1 << t.index()),
    );
    put_nibbles(out, 14, &o.face_up_in_wall())?;
    let (asked, answer) = match pending {
        Pending::None => (0, 0),
        Pending::Turn => (26, 0),
        Pending::Discard { tile, .. } => (27, 1 << tile.index()),
        Pending::AddedKong { tile, .. } => (28, 1 << tile.index()),
    };
    put_bits(out, 15, answer);
    let (ting, dealer) = (o.ting(), o.dealer());
    let (counts, scores) = (o.concealed_count(), o.scores());
    for s in 0..4u8 {
        let r = rel(s);
        out[AT[16 + r]] = u8::from(ting[s as usize]);
        out[AT[20 + r]] = u8::from(s == dealer);
        out[AT[34 + r]] = counts[s as usize];
        out[AT[38 + r]] = (128 + scores[s as usize].clamp(-128, 127)) as u8;
    }
    out[AT[24]] = o.live_remaining();
    out[AT[25]] = u8::from(o.may_win_discards());
    for p in 26..29 {
        out[AT[p]] = u8::from(p == asked);
    }
    put_bits(out, 29, o.locked_kinds() & ((1 << KINDS) - 1));
    // Planes 42-65 (a byte each): seat r's j-th latest discard, one kind
    // at most; the checks folded into one test.
    let mut codes = [0u8; 4 * RECENT_DISCARDS];
    let mut fits = true;
    for (s, recent) in rows.recent.iter().enumerate() {
        let first = RECENT_DISCARDS * rel(s as u8);
        for (code, &(k, v)) in codes[first..first + RECENT_DISCARDS].iter_mut().zip(recent) {
            fits &= v <= 3 && (v == 0 || usize::from(k) < KINDS);
            let c = 1u8
                .wrapping_add(34u8.wrapping_mul(v.wrapping_sub(1)))
                .wrapping_add(k);
            *code = if v == 0 { 0 } else { c };
        }
    }
    out[AT[42]..].copy_from_slice(&codes);
    if !fits {
        let bad = (0..codes.len())
            .find(|&i| {
                let (k, v) = rows.recent[i / RECENT_DISCARDS][i % RECENT_DISCARDS];
                v > 3 || (v != 0 && usize::from(k) >= KINDS)
            })
            .unwrap_or(0);
        // Planes are by relative seat; name the first misfit's.
        let s = (bad / RECENT_DISCARDS) as u8;
        return Err(unfit(
            42 + RECENT_DISCARDS * rel(s) + bad % RECENT_DISCARDS,
            Form::OneHot,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{builtin, Agent, SeatView};
    use crate::game::encode::{self, ponds::Ponds, Encoding};
    use crate::game::view::GameView;
    use crate::game::{Action, Game};
    use crate::record::pack_planes;
    use crate::ruleset::{PassScope, Ruleset};

    /// The written bytes are the packed encoder row's, for every seat at
    /// every position of many hands of every family (hidden concealed
    /// kongs, 过胡 locks, scores out of the plane's range, claims and
    /// face-down ting discards included), whether the discard planes are
    /// walked or kept up to date, from the game or from an observation,
    /// over a dirty buffer.
    #[test]
    fn direct_rows_equal_packed_encoder_rows() {
        let mut hide = Ruleset::shanxi();
        hide.hide_concealed_kong = true;
        let mut locks = Ruleset::shanxi();
        locks.pass_scope = PassScope::Tile;
        let mut checked = 0;
        for rules in [
            Ruleset::shanxi(),
            Ruleset::linxian(),
            Ruleset::sichuan(),
            hide,
            locks,
        ] {
            for seed in 0..25u64 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                g.set_scores([seed as i64 * 40 - 500, 130, -129, 5]);
                let mut ponds = Ponds::default();
                let mut agents: [Box<dyn Agent>; 4] = std::array::from_fn(|s| {
                    builtin(
                        if seed % 2 == 0 { "greedy" } else { "random" },
                        seed + s as u64,
                    )
                    .unwrap()
                });
                let mut turn = 0usize;
                loop {
                    ponds.catch_up(&g);
                    for s in 0..4 {
                        let mut planes = [0u8; Encoding::V2.len()];
                        encode::write(&GameView::new(&g, s), Encoding::V2, &mut planes);
                        let mut want = [0u8; OBS_BYTES_V2];
                        pack_planes(&planes, &mut want).unwrap();
                        let mut a = [0xA5; OBS_BYTES_V2];
                        pack_view(&GameView::new(&g, s), &mut a).unwrap();
                        let mut b = [7; OBS_BYTES_V2];
                        pack_view(&GameView::with_ponds(&g, s, &ponds), &mut b).unwrap();
                        let mut c = [0xFF; OBS_BYTES_V2];
                        pack_view(&g.observe(s), &mut c).unwrap();
                        assert_eq!(a, want, "seed {seed} turn {turn} seat {s}");
                        assert_eq!(b, want, "kept ponds: seed {seed} turn {turn} seat {s}");
                        assert_eq!(c, want, "observation: seed {seed} turn {turn} seat {s}");
                        if s == 0 || seed % 3 == 0 {
                            let mut v3 = [0u8; Encoding::V3.len()];
                            encode::write(&GameView::new(&g, s), Encoding::V3, &mut v3);
                            let mut want3 = [0u8; OBS_BYTES];
                            crate::record::pack_encoded(Encoding::V3, &v3, &mut want3).unwrap();
                            let mut d = [0x5A; OBS_BYTES];
                            pack_view_v3(&GameView::with_ponds(&g, s, &ponds), &mut d).unwrap();
                            assert_eq!(d, want3, "v3: seed {seed} turn {turn} seat {s}");
                        }
                        checked += 1;
                    }
                    let Some(seat) = g.to_act() else { break };
                    // Pass half the wins offered on a discard (so that
                    // 过胡 locks happen), else the agent's choice.
                    let legal = g.legal_actions();
                    let a = match legal.contains(Action::Pass) && turn.is_multiple_of(2) {
                        true => Action::Pass,
                        false => agents[seat as usize].act(&SeatView::new(&g, seat)),
                    };
                    g.step(a).unwrap();
                    turn += 1;
                }
            }
        }
        assert!(checked > 20_000, "{checked}");
    }

    /// A view that does not fit the layout (here 16 face-up discards of
    /// one kind in a pond, past a nibble) is refused, naming the plane
    /// packing the encoder's row names.
    #[test]
    fn views_that_do_not_fit_are_refused_like_rows() {
        let g = Game::new(&Ruleset::shanxi(), 4, None).unwrap();
        let mut o = g.observe(0);
        let t = crate::tile::Tile::new(3).unwrap();
        for d in &mut o.discards[..16] {
            *d = crate::game::observation::SeenDiscard {
                seat: 1,
                tile: Some(t),
                face_down: false,
                claimed: false,
            };
        }
        o.n_discards = 16;
        let mut planes = [0u8; Encoding::V2.len()];
        encode::encode_into(&o, Encoding::V2, &mut planes).unwrap();
        let want = pack_planes(&planes, &mut [0; OBS_BYTES_V2]).unwrap_err();
        let got = pack_view(&o, &mut [0; OBS_BYTES_V2]).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
        assert!(got.to_string().contains("plane 10"), "{got}");
    }
}
