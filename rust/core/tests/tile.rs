//! docs/rules.md §1: tiles, points and notation.

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::tile::{counts_of, format_tiles, parse, KindSet, Suit, Tile};
use proptest::prelude::*;

#[test]
fn index_convention_m_p_s_z() {
    assert_eq!(parse("1m").unwrap()[0].index(), 0);
    assert_eq!(parse("9m").unwrap()[0].index(), 8);
    assert_eq!(parse("1p").unwrap()[0].index(), 9);
    assert_eq!(parse("1s").unwrap()[0].index(), 18);
    assert_eq!(parse("1z").unwrap()[0], Tile::EAST);
    assert_eq!(parse("5z").unwrap()[0], Tile::WHITE);
    assert_eq!(parse("6z").unwrap()[0], Tile::GREEN);
    assert_eq!(parse("7z").unwrap()[0], Tile::RED);
}

#[test]
fn points_suited_rank_honors_ten() {
    for t in Tile::all() {
        let want = if t.suit() == Suit::Honor {
            10
        } else {
            t.rank()
        };
        assert_eq!(t.points(), want, "{t}");
    }
}

#[test]
fn zero_is_not_a_tile() {
    let e = parse("05m").unwrap_err().to_string();
    assert!(e.contains("'0' at position 0"), "{e}");
}

#[test]
fn honor_ranks_stop_at_seven() {
    let e = parse("8z").unwrap_err().to_string();
    assert!(e.contains("'8' at position 0"), "{e}");
}

#[test]
fn errors_name_the_character_and_position() {
    let e = parse("123m4x5p").unwrap_err().to_string();
    assert!(e.contains("'x' at position 5"), "{e}");
    let e = parse("一万x").unwrap_err().to_string();
    assert!(e.contains("'x' at position 2"), "{e}");
    assert!(parse("123").unwrap_err().to_string().contains("position 0"));
}

#[test]
fn chinese_numeral_runs_before_one_suit_name_parse() {
    // As players write them: 四五六筒 is 456p, like the notation.
    assert_eq!(format_tiles(&parse("四五六筒").unwrap()), "456p");
    assert_eq!(
        format_tiles(&parse("一二三万 七八九条 五五筒 东").unwrap()),
        "123m55p789s1z"
    );
    assert_eq!(parse("四五六筒").unwrap(), parse("456p").unwrap());
    // A run with no suit name after it names the character where the
    // suit was expected.
    let e = parse("四五六x").unwrap_err().to_string();
    assert!(
        e.contains("'x' at position 3") && e.contains("万, 筒 or 条"),
        "{e}"
    );
    let e = parse("四五").unwrap_err().to_string();
    assert!(e.contains("position 1"), "{e}");
}

#[test]
fn glyphs_and_chinese_names_parse() {
    let tiles = parse("一万九筒五条东南西北白发中红中🀄").unwrap();
    assert_eq!(format_tiles(&tiles), "1m9p5s123456777z");
    for t in Tile::all() {
        assert_eq!(parse(&t.glyph().to_string()).unwrap(), vec![t]);
        assert_eq!(parse(&t.chinese()).unwrap(), vec![t]);
    }
}

#[test]
fn fifth_copy_counting_melds_is_an_error() {
    let tiles = parse("1111m").unwrap();
    let e = Hand::from_tiles(&tiles, &[Meld::new(MeldKind::Pong, Tile::M1)]).unwrap_err();
    assert!(e.to_string().contains("7 copies of 1m"), "{e}");
    assert!(Hand::from_tiles(&parse("11111m").unwrap(), &[]).is_err());
}

#[test]
fn wrong_hand_size_says_the_expected_size() {
    let h = Hand::from_tiles(&parse("123m").unwrap(), &[]).unwrap();
    let e = h.check_size(true).unwrap_err().to_string();
    assert!(e.contains("needs 14"), "{e}");
}

#[test]
fn indicator_sequence_wraps() {
    let next = |s: &str| Tile::from_notation(s).unwrap().indicator_next().to_string();
    assert_eq!(next("9m"), "1m");
    assert_eq!(next("3p"), "4p");
    assert_eq!(next("4z"), "1z"); // 北→东
    assert_eq!(next("7z"), "6z"); // 中→发
    assert_eq!(next("6z"), "5z"); // 发→白
    assert_eq!(next("5z"), "7z"); // 白→中
}

proptest! {
    #[test]
    fn notation_round_trips(kinds in proptest::collection::vec(0u8..34, 0..20)) {
        let tiles: Vec<Tile> = kinds.iter().map(|&k| Tile::new(k).unwrap()).collect();
        let s = format_tiles(&tiles);
        let back = parse(&s).unwrap();
        prop_assert_eq!(counts_of(&back).unwrap(), counts_of(&tiles).unwrap());
        prop_assert_eq!(format_tiles(&back), s);
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,20}") {
        let _ = parse(&s);
    }
}

/// A kind set's operations agree with a plain list of 34 flags.
fn flags(kinds: &[u8]) -> [bool; 34] {
    let mut f = [false; 34];
    for &k in kinds {
        f[k as usize] = true;
    }
    f
}

fn kind_set(kinds: &[u8]) -> KindSet {
    kinds.iter().map(|&k| Tile::new(k).unwrap()).collect()
}

proptest! {
    #[test]
    fn kind_sets_behave_like_lists_of_flags(
        a in proptest::collection::vec(0u8..34, 0..40),
        b in proptest::collection::vec(0u8..34, 0..40),
    ) {
        let (fa, fb) = (flags(&a), flags(&b));
        let (sa, sb) = (kind_set(&a), kind_set(&b));
        let listed = |f: &dyn Fn(usize) -> bool| -> Vec<Tile> {
            (0..34u8).filter(|&k| f(k as usize)).map(|k| Tile::new(k).unwrap()).collect()
        };
        prop_assert_eq!(sa.iter().collect::<Vec<_>>(), listed(&|k| fa[k]));
        prop_assert_eq!(sa.len(), fa.iter().filter(|&&x| x).count());
        prop_assert_eq!(sa.is_empty(), a.is_empty());
        prop_assert_eq!(sa.first(), listed(&|k| fa[k]).first().copied());
        prop_assert_eq!(sa.union(sb).iter().collect::<Vec<_>>(), listed(&|k| fa[k] || fb[k]));
        prop_assert_eq!(
            sa.intersection(sb).iter().collect::<Vec<_>>(),
            listed(&|k| fa[k] && fb[k])
        );
        prop_assert_eq!(
            sa.difference(sb).iter().collect::<Vec<_>>(),
            listed(&|k| fa[k] && !fb[k])
        );
        for t in Tile::all() {
            prop_assert_eq!(sa.contains(t), fa[t.index()]);
            let mut s = sa;
            s.remove(t);
            prop_assert!(!s.contains(t));
            s.insert(t);
            prop_assert!(s.contains(t) && s.union(sa) == s);
        }
        let mut counts = [0u8; 34];
        for &k in &a {
            counts[k as usize] = (counts[k as usize] + 1).min(4);
        }
        prop_assert_eq!(KindSet::held(&counts), sa);
        prop_assert!(KindSet::ALL.difference(sa).union(sa) == KindSet::ALL);
    }
}

#[test]
fn kind_set_constants_name_their_kinds() {
    let orphans = kind_set(&[0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]);
    assert_eq!(KindSet::ORPHANS, orphans);
    assert!(KindSet::ORPHANS.iter().all(|t| t.is_terminal_or_honor()));
    assert_eq!(KindSet::HONORS, kind_set(&[27, 28, 29, 30, 31, 32, 33]));
    assert!(KindSet::HONORS.iter().all(|t| t.is_honor()));
    assert_eq!(KindSet::ALL.len(), 34);
    for s in 0..3 {
        let suit = KindSet::suit(s);
        assert_eq!(suit.len(), 9);
        assert!(suit.iter().all(|t| t.index() / 9 == s));
    }
    assert_eq!(KindSet::suit(3), KindSet::HONORS);
}
