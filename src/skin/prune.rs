//! Per-vertex influence pruning (docs/algorithms.md#skin-influence-pruning): the last step of every
//! weight row, in the one place ([`super::finish_row`]) that the heat solve and `edit`'s local
//! re-solves share, so rig.json, the GLB and the score all see the same rows.
//!
//! Heat diffusion gives every vertex a small weight from every joint whose heat reaches it: the
//! rows are dense where an artist's hold 1–3 influences. Two limits, both relative to the row:
//!
//! * at most [`super::SkinOptions::max_influences`] joints (4 by default: glTF's `JOINTS_0`
//!   holds four, and engines skin with four);
//! * a joint weighing less than [`super::SkinOptions::relative_prune`] × the row's largest weight
//!   is dropped.
//!
//! The cut is **soft**: with `c` the larger of the relative floor and the first weight beyond the
//! limit, every weight becomes `max(0, w − c)` before renormalizing. A weight therefore reaches 0
//! continuously as it falls to the cut, instead of jumping from `c` to 0 between neighbouring
//! vertices, so the heat method's smoothness survives (no seam where an influence drops out), and
//! the result still sums to 1 (partition of unity).

use super::SkinOptions;

/// Default relative floor (see the module docs): the long tail of joints below 1 % of a vertex's
/// heaviest weight, which move it by less than the heat solve's own smoothing error. Larger floors
/// trade influence recall for precision against artist rigs (measured with `attach` on the
/// corpus' eight artist skins: a floor of 0.02 already lost 0.01–0.05 recall on five of them while
/// no artist weight below 0.05 counts as an influence), so the floor stays small and the count
/// limit does the real pruning.
pub const RELATIVE_PRUNE: f64 = 0.01;

/// Prune `w` (weights ≥ 0, any order) in place as described in the module docs, renormalize to
/// sum 1 and sort heaviest first (ties by joint). Leaves `w` empty if nothing positive remains.
pub fn prune_row(w: &mut Vec<(u32, f64)>, opts: &SkinOptions) {
    w.retain(|e| e.1.is_finite() && e.1 > 0.0);
    w.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let Some(&(_, top)) = w.first() else {
        return;
    };
    let limit = opts.max_influences.max(1);
    let beyond = w.get(limit).map_or(0.0, |e| e.1);
    let cut = (opts.relative_prune.clamp(0.0, 1.0) * top).max(beyond);
    w.truncate(limit);
    if cut > 0.0 && cut < top {
        for e in w.iter_mut() {
            e.1 -= cut;
        }
        w.retain(|e| e.1 > 0.0);
    } else if cut >= top {
        // Every kept weight ties with the cut (e.g. five equal weights): keep the tie as it is.
        w.retain(|e| e.1 >= top);
    }
    let sum: f64 = w.iter().map(|e| e.1).sum();
    if sum <= 0.0 {
        w.clear();
        return;
    }
    for e in w.iter_mut() {
        e.1 /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(max: usize, rel: f64) -> SkinOptions {
        SkinOptions {
            max_influences: max,
            relative_prune: rel,
            ..SkinOptions::default()
        }
    }

    fn sum(w: &[(u32, f64)]) -> f64 {
        w.iter().map(|e| e.1).sum()
    }

    #[test]
    fn at_most_the_limit_renormalized_heaviest_first() {
        let mut w: Vec<(u32, f64)> = (0..7).map(|j| (j, 0.05 + 0.02 * j as f64)).collect();
        prune_row(&mut w, &opts(4, 0.0));
        assert!((sum(&w) - 1.0).abs() < 1e-12);
        assert_eq!(w.iter().map(|e| e.0).collect::<Vec<_>>(), vec![6, 5, 4, 3]);
        let mut w = vec![(0, 0.4), (1, 0.3), (2, 0.2), (3, 0.06), (4, 0.04)];
        prune_row(&mut w, &opts(4, 0.0));
        assert_eq!(w.len(), 4);
        assert!((sum(&w) - 1.0).abs() < 1e-12);
        for max in 1..6 {
            let mut w: Vec<(u32, f64)> = (0..9).map(|j| (j, 1.0 / (1.0 + j as f64))).collect();
            prune_row(&mut w, &opts(max, 0.0));
            assert!(!w.is_empty() && w.len() <= max, "{max}: {w:?}");
            assert!((sum(&w) - 1.0).abs() < 1e-12);
            assert!(w.windows(2).all(|p| p[0].1 >= p[1].1));
        }
    }

    #[test]
    fn relative_floor_drops_small_weights_and_is_continuous() {
        let mut w = vec![(0, 0.8), (1, 0.15), (2, 0.05)];
        prune_row(&mut w, &opts(4, 0.1));
        assert_eq!(w.iter().map(|e| e.0).collect::<Vec<_>>(), vec![0, 1]);
        assert!((sum(&w) - 1.0).abs() < 1e-12);
        // Continuity: a weight approaching the cut from above gets a weight approaching 0.
        let second = |x: f64| {
            let mut w = vec![(0, 1.0 - x), (1, x)];
            prune_row(&mut w, &opts(4, 0.1));
            w.iter().find(|e| e.0 == 1).map_or(0.0, |e| e.1)
        };
        let edge = 0.1 / 1.1; // x = 0.1 (1 − x)
        assert!(second(edge + 1e-9) < 1e-7);
        assert_eq!(second(edge - 1e-9), 0.0);
        assert!(second(0.5) > 0.49);
    }

    #[test]
    fn degenerate_rows() {
        let mut w: Vec<(u32, f64)> = vec![(3, 0.0), (4, f64::NAN)];
        prune_row(&mut w, &opts(4, 0.1));
        assert!(w.is_empty());
        let mut w: Vec<(u32, f64)> = (0..6).map(|j| (j, 0.2)).collect();
        prune_row(&mut w, &opts(4, 0.1));
        assert_eq!(w.len(), 4, "ties at the limit keep the first four by joint");
        assert!((sum(&w) - 1.0).abs() < 1e-12);
    }
}
