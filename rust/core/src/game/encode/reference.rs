//! The encoder as first written, plane after plane with one bounds-checked
//! store per value: the deliberately plain reference that the tests hold
//! the fast encoder ([`super::write`]) to.

use super::{Cell, Encoding, SeenBy, View, RECENT_DISCARDS};
use crate::game::observation::Pending;
use crate::tile::KINDS;

/// Writes `o` in `enc` into `out` (exactly `enc.len()` values).
pub(crate) fn write<T: Cell>(o: &impl View, enc: Encoding, out: &mut [T]) {
    let me = o.seat();
    let rel = |s: u8| ((s + 4 - me) & 3) as usize;
    let at = |plane: usize, k: usize| plane * KINDS + k;
    let v2 = enc == Encoding::V2;
    // Only the planes not written whole below are cleared first (planes
    // 0-3, 14, 24 and 34-41 are): a fifth less memory to clear a step.
    let end = enc.n_planes();
    for (from, to) in [(4, 14), (15, 24), (25, end.min(34)), (42.min(end), end)] {
        out[at(from, 0)..at(to, 0)].fill(T::default());
    }
    let fill = |out: &mut [T], plane: usize, v: T| out[at(plane, 0)..at(plane + 1, 0)].fill(v);
    let one = T::of(1);
    for (k, &c) in o.concealed().iter().enumerate() {
        // Branch-free: four stores a kind (the count is at most 4).
        for n in 0..4 {
            out[at(n, k)] = T::of(u8::from(c > n as u8));
        }
    }
    let (pending, drawn) = o.pending_drawn();
    if let Some(t) = drawn {
        out[at(4, t.index())] = one;
    }
    o.each_meld(|s, m| {
        if let Some(t) = m.tile {
            let i = at(5 + rel(s), t.index());
            out[i] = out[i].plus(m.kind.size());
            if let (true, Some(from)) = (v2, m.from) {
                out[at(30 + rel(from), t.index())] = one;
            }
        }
    });
    // One pass over the discards, newest first: the pond (planes 9-12)
    // and, in version 2, each seat's latest ones (planes 42-65).
    let mut seen = [0usize; 4];
    for d in o.discard_list().iter().rev() {
        let d = d.seen_by(me);
        let r = rel(d.seat);
        let Some(t) = d.tile else {
            seen[r] += 1;
            continue;
        };
        if !d.claimed {
            let i = at(9 + r, t.index());
            out[i] = out[i].plus(1);
        }
        if v2 && seen[r] < RECENT_DISCARDS {
            let v = if d.claimed {
                2
            } else if d.face_down {
                3
            } else {
                1
            };
            out[at(42 + RECENT_DISCARDS * r + seen[r], t.index())] = T::of(v);
        }
        seen[r] += 1;
    }
    for t in o.wilds().kinds() {
        out[at(13, t.index())] = one;
    }
    for (k, &n) in o.face_up_in_wall().iter().enumerate() {
        out[at(14, k)] = T::of(n);
    }
    let pending = match pending {
        Pending::None => None,
        Pending::Turn => Some((26, None)),
        Pending::Discard { tile, .. } => Some((27, Some(tile))),
        Pending::AddedKong { tile, .. } => Some((28, Some(tile))),
    };
    if let Some((plane, tile)) = pending {
        if let Some(t) = tile {
            out[at(15, t.index())] = one;
        }
        fill(out, plane, one);
    }
    for (s, &ting) in o.ting().iter().enumerate() {
        if ting {
            fill(out, 16 + rel(s as u8), one);
        }
    }
    fill(out, 20 + rel(o.dealer()), one);
    let live = if v2 {
        T::of(o.live_remaining())
    } else {
        T::ratio(o.live_remaining(), 136.0)
    };
    fill(out, 24, live);
    if o.may_win_discards() {
        fill(out, 25, one);
    }
    if !v2 {
        return;
    }
    let locked = o.locked_kinds();
    for k in 0..KINDS {
        if locked >> k & 1 == 1 {
            out[at(29, k)] = one;
        }
    }
    let (counts, scores) = (o.concealed_count(), o.scores());
    for s in 0..4 {
        let r = rel(s as u8);
        fill(out, 34 + r, T::of(counts[s]));
        let score = (128 + scores[s].clamp(-128, 127)) as u8;
        fill(out, 38 + r, T::of(score));
    }
}
