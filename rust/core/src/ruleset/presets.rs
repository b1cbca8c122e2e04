//! The shipped presets and the TOML writer.
//!
//! A preset is defined once, by its TOML file in `python/koudian/presets/`
//! (the files users read and the wheel ships), embedded here at compile
//! time: [`Ruleset::preset`] reads it with [`Ruleset::from_toml`]. The
//! family constructors ([`Ruleset::shanxi`], [`Ruleset::linxian`],
//! [`Ruleset::sichuan`]) are the defaults `from_toml` starts from; tests
//! hold each preset file to them and to what [`Ruleset::to_toml`] writes.

use super::{OptionValue, Ruleset, OPTIONS};
use crate::error::Error;

/// Every shipped preset: its name and its TOML file, sorted by name (the
/// order of the error's list of presets).
const PRESETS: [(&str, &str); 6] = [
    (
        "linxian",
        include_str!("../../../../python/koudian/presets/linxian.toml"),
    ),
    (
        "shanxi",
        include_str!("../../../../python/koudian/presets/shanxi.toml"),
    ),
    (
        "shanxi-double-haozi",
        include_str!("../../../../python/koudian/presets/shanxi-double-haozi.toml"),
    ),
    (
        "shanxi-feng-haozi",
        include_str!("../../../../python/koudian/presets/shanxi-feng-haozi.toml"),
    ),
    (
        "shanxi-haozi",
        include_str!("../../../../python/koudian/presets/shanxi-haozi.toml"),
    ),
    (
        "sichuan",
        include_str!("../../../../python/koudian/presets/sichuan.toml"),
    ),
];

impl Ruleset {
    /// The shipped preset `name` (`shanxi`, `shanxi-haozi`,
    /// `shanxi-feng-haozi`, `shanxi-double-haozi`, `linxian`, `sichuan`),
    /// read from its TOML file; an unknown name is an
    /// [`Error::InvalidRuleset`] naming the closest preset.
    ///
    /// ```
    /// use koudian_core::ruleset::{Haozi, Ruleset};
    /// assert_eq!(Ruleset::preset("shanxi-haozi").unwrap().haozi, Haozi::Single);
    /// let e = Ruleset::preset("linxain").unwrap_err().to_string();
    /// assert!(e.starts_with("unknown preset 'linxain' (did you mean 'linxian'?)"));
    /// ```
    pub fn preset(name: &str) -> Result<Ruleset, Error> {
        match PRESETS.iter().find(|(p, _)| *p == name) {
            Some((_, text)) => Ruleset::from_toml(text),
            None => Err(unknown_preset(name)),
        }
    }

    /// The names of the shipped presets, sorted.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|(name, _)| *name)
    }

    /// The ruleset as TOML: every option of docs/rules.md, in its order,
    /// with its documentation; [`Ruleset::from_toml`] reads it back to
    /// this ruleset.
    ///
    /// ```
    /// use koudian_core::Ruleset;
    /// let r = Ruleset::linxian();
    /// assert_eq!(Ruleset::from_toml(&r.to_toml()).unwrap(), r);
    /// ```
    pub fn to_toml(&self) -> String {
        let mut s =
            String::from("# koudian ruleset: every option of docs/rules.md with its value.\n");
        for (name, doc) in OPTIONS {
            // Every name of OPTIONS is an option `get` answers.
            if let Ok(v) = self.get(name) {
                s.push_str(&format!("\n# {doc}\n{name} = {}\n", toml_value(&v)));
            }
        }
        s
    }
}

fn toml_value(v: &OptionValue) -> String {
    match v {
        OptionValue::Bool(b) => b.to_string(),
        OptionValue::Int(i) => i.to_string(),
        OptionValue::Str(s) => format!("{s:?}"),
        OptionValue::Pair(a, b) => format!("[{a}, {b}]"),
    }
}

/// The error for an unknown preset name: the name as Python's `repr`
/// writes it, the closest preset as Python's `difflib.get_close_matches`
/// picks it (the message the Python layer always gave), and every preset.
fn unknown_preset(name: &str) -> Error {
    let names: Vec<&str> = Ruleset::preset_names().collect();
    let hint = close_match(name, &names)
        .map(|n| format!(" (did you mean {}?)", py_repr(n)))
        .unwrap_or_default();
    Error::InvalidRuleset(format!(
        "unknown preset {}{hint}; presets: {}",
        py_repr(name),
        names.join(", ")
    ))
}

/// `difflib.get_close_matches(word, names, n=1, cutoff=0.6)`: the name
/// with the highest similarity ratio of at least 0.6 (ties to the larger
/// name), with difflib's two cheap upper bounds first, so that a long
/// word costs a length comparison.
fn close_match<'a>(word: &str, names: &[&'a str]) -> Option<&'a str> {
    const CUTOFF: f64 = 0.6;
    let b: Vec<char> = word.chars().collect();
    let mut best: Option<(f64, &str)> = None;
    for &name in names {
        let a: Vec<char> = name.chars().collect();
        let total = a.len() + b.len();
        let ratio = |matches: usize| {
            if total == 0 {
                1.0
            } else {
                2.0 * matches as f64 / total as f64
            }
        };
        if ratio(a.len().min(b.len())) < CUTOFF || ratio(common_chars(&a, &b)) < CUTOFF {
            continue;
        }
        let score = ratio(matching_chars(&a, &b));
        if score >= CUTOFF && best.is_none_or(|(s, n)| (score, name) > (s, n)) {
            best = Some((score, name));
        }
    }
    best.map(|(_, name)| name)
}

/// The characters `a` and `b` share as multisets (difflib's
/// `quick_ratio` count).
fn common_chars(a: &[char], b: &[char]) -> usize {
    let mut left: Vec<char> = b.to_vec();
    let mut n = 0;
    for c in a {
        if let Some(i) = left.iter().position(|x| x == c) {
            left.swap_remove(i);
            n += 1;
        }
    }
    n
}

/// The characters in difflib's matching blocks of `a` and `b` (no junk):
/// the longest common block (the earliest in `a`, then in `b`), then the
/// same on each side of it.
fn matching_chars(a: &[char], b: &[char]) -> usize {
    let mut todo = vec![(0, a.len(), 0, b.len())];
    let mut total = 0;
    while let Some((alo, ahi, blo, bhi)) = todo.pop() {
        let (mut bi, mut bj, mut bk) = (alo, blo, 0);
        for i in alo..ahi {
            for j in blo..bhi {
                let k = (0..(ahi - i).min(bhi - j))
                    .take_while(|&k| a[i + k] == b[j + k])
                    .count();
                if k > bk {
                    (bi, bj, bk) = (i, j, k);
                }
            }
        }
        if bk > 0 {
            total += bk;
            if alo < bi && blo < bj {
                todo.push((alo, bi, blo, bj));
            }
            if bi + bk < ahi && bj + bk < bhi {
                todo.push((bi + bk, ahi, bj + bk, bhi));
            }
        }
    }
    total
}

/// `s` as Python's `repr` writes a string: single quotes unless it holds
/// one and no double quote, the quote and backslash escaped, control and
/// format characters as `\t`, `\n`, `\r`, `\xhh`, `\uhhhh` or
/// `\Uhhhhhhhh` (Python's unassigned code points aside, which it also
/// escapes).
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xff => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if u32::from(c) <= 0xffff => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` of one character, for the categories a
/// preset name may meet: not a control (Cc), a separator other than the
/// space (Zs, Zl, Zp), a common format character (Cf) or private use
/// (Co).
fn printable(c: char) -> bool {
    let u = u32::from(c);
    let format = matches!(u, 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f
        | 0xfeff | 0xfff9..=0xfffb | 0xe0001 | 0xe0020..=0xe007f);
    let private = matches!(u, 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd);
    c == ' ' || !(c.is_control() || c.is_whitespace() || format || private)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Haozi;

    /// The option lines (`name = value`) of a TOML text, comments and
    /// blank lines left out.
    fn option_lines(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect()
    }

    /// Every preset file holds exactly the option lines `to_toml` writes
    /// for its ruleset (every option, in docs/rules.md order, each value
    /// spelled as the writer spells it), and reads back to it.
    #[test]
    fn every_preset_file_is_what_to_toml_writes() {
        for (name, text) in PRESETS {
            let r = Ruleset::preset(name).unwrap();
            let written = r.to_toml();
            assert_eq!(option_lines(text), option_lines(&written), "{name}");
            assert_eq!(Ruleset::from_toml(&written).unwrap(), r, "{name}");
        }
    }

    /// The Rust definitions of the presets (the family defaults, and the
    /// Shanxi family with each wild-tile choice) equal the TOML files.
    #[test]
    fn every_preset_file_equals_its_rust_definition() {
        let shanxi = |haozi| Ruleset {
            haozi,
            ..Ruleset::shanxi()
        };
        let defined = [
            ("linxian", Ruleset::linxian()),
            ("shanxi", Ruleset::shanxi()),
            ("shanxi-double-haozi", shanxi(Haozi::Double)),
            ("shanxi-feng-haozi", shanxi(Haozi::Feng)),
            ("shanxi-haozi", shanxi(Haozi::Single)),
            ("sichuan", Ruleset::sichuan()),
        ];
        assert_eq!(
            Ruleset::preset_names().collect::<Vec<_>>(),
            defined.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
        for (name, r) in defined {
            assert_eq!(Ruleset::preset(name).unwrap(), r, "{name}");
        }
    }

    /// The registry embeds every TOML file of the presets folder, and
    /// nothing else.
    #[test]
    fn the_registry_lists_every_preset_file() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/koudian/presets");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|f| f.strip_suffix(".toml").map(str::to_string))
            .collect();
        files.sort();
        let names: Vec<String> = Ruleset::preset_names().map(str::to_string).collect();
        assert_eq!(files, names);
        for (name, text) in PRESETS {
            let on_disk = std::fs::read_to_string(format!("{dir}/{name}.toml")).unwrap();
            assert_eq!(on_disk, text, "{name}");
        }
    }

    /// The closest name, as Python's `difflib.get_close_matches(word,
    /// presets, n=1)` answered (the values were taken from CPython 3.11).
    #[test]
    fn close_match_is_difflibs() {
        let names: Vec<&str> = Ruleset::preset_names().collect();
        let cases = [
            ("shanxi-haoz", Some("shanxi-haozi")),
            ("nope", None),
            ("mahjong", None),
            ("linxain", Some("linxian")),
            ("SHANXI", None),
            ("sichuan-x", Some("sichuan")),
            ("shanxi-h", Some("shanxi")),
            ("shanx", Some("shanxi")),
            ("haozi", None),
            ("feng", None),
            ("shanxi-double", Some("shanxi-double-haozi")),
            ("xian", Some("linxian")),
            ("sc", None),
            ("s", None),
            ("", None),
            ("shanxi-feng-haoz1", Some("shanxi-feng-haozi")),
            ("riichi", None),
            ("linxian ", Some("linxian")),
            ("sichaun", Some("sichuan")),
            ("双耗子", None),
            ("shanxi-haozi-double", Some("shanxi-haozi")),
        ];
        for (word, want) in cases {
            assert_eq!(close_match(word, &names), want, "{word:?}");
        }
        assert_eq!(close_match(&"x".repeat(1_000_000), &names), None);
    }

    /// Names are quoted as Python's `repr` quotes them (values from
    /// CPython 3.11).
    #[test]
    fn names_are_quoted_as_python_reprs() {
        let cases = [
            ("nope", r"'nope'"),
            ("it's", r#""it's""#),
            (r#"say "hi""#, r#"'say "hi"'"#),
            (r#"both ' and ""#, r#"'both \' and "'"#),
            ("tab\there", r"'tab\there'"),
            ("nl\n", r"'nl\n'"),
            ("bell\x07", r"'bell\x07'"),
            ("del\x7f", r"'del\x7f'"),
            ("é", "'é'"),
            ("\u{ad}", r"'\xad'"),
            ("\u{200b}", r"'\u200b'"),
            ("\u{3000}", r"'\u3000'"),
            ("\u{85}", r"'\x85'"),
            ("\u{e000}", r"'\ue000'"),
            ("双", "'双'"),
            (r"back\slash", r"'back\\slash'"),
        ];
        for (s, want) in cases {
            assert_eq!(py_repr(s), want, "{s:?}");
        }
    }

    /// The unknown-preset message, word for word as the Python layer
    /// wrote it.
    #[test]
    fn an_unknown_preset_names_the_closest_and_every_preset() {
        assert_eq!(
            Ruleset::preset("shanxi-haoz").unwrap_err(),
            Error::InvalidRuleset(
                "unknown preset 'shanxi-haoz' (did you mean 'shanxi-haozi'?); presets: linxian, \
                 shanxi, shanxi-double-haozi, shanxi-feng-haozi, shanxi-haozi, sichuan"
                    .into()
            )
        );
        assert!(Ruleset::preset("nope")
            .unwrap_err()
            .to_string()
            .starts_with("unknown preset 'nope'; presets: linxian,"));
    }
}
