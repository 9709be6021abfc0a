//! One high-resolution branch against one template branch (Bharaj et al. 2012 §8.1–8.4): the
//! node cost K of Eq. 8 (position, relative position along the branch, degree, betweenness, area,
//! and our pin term) and the order-preserving dynamic program over the trellis that minimizes
//! its sum Q (Eq. 7). [`super::mapping`] fills the branch matrix with these and chooses among them.

use super::mapping::Target;
use super::tree::{betweenness, Tree};
use crate::geom::P3;

/// α1..α5 of Eq. 8: position, relative position along the branch, degree, betweenness
/// (subtracted), area (subtracted).
pub const ALPHA: [f64; 5] = [10.0, 2.0, 0.2, 1.0, 0.5];
/// Weight of a pinned joint's distance term (hints): large enough to dominate K_Pos (α1 = 10).
pub const PIN_WEIGHT: f64 = 100.0;

/// Relative position of each node along a branch: cumulative length ÷ total (a fraction, §8.3).
fn fractions(points: &[P3]) -> Vec<f64> {
    let mut acc = vec![0.0];
    for w in points.windows(2) {
        acc.push(acc.last().unwrap_or(&0.0) + (w[1] - w[0]).norm());
    }
    let total = acc.last().copied().unwrap_or(0.0).max(1e-12);
    acc.iter().map(|a| a / total).collect()
}

/// Per-node quantities of the high-resolution tree that K needs.
pub struct NodeTerms {
    degree: Vec<usize>,
    betweenness: Vec<f64>,
    area: Vec<f64>,
}

impl NodeTerms {
    /// Degree, normalized betweenness and normalized area of every node.
    pub fn of(tree: &Tree) -> Self {
        let bet = betweenness(&tree.adjacency());
        let norm = |v: &[f64]| {
            let m = v.iter().copied().fold(0.0, f64::max).max(1e-300);
            v.iter().map(|x| x / m).collect()
        };
        Self {
            degree: (0..tree.len()).map(|i| tree.degree(i)).collect(),
            betweenness: norm(&bet),
            area: norm(&tree.area),
        }
    }
}

/// Q and the matched `(node, joint)` pairs of one high-resolution branch against one template branch.
pub fn match_branch(
    tree: &Tree,
    terms: &NodeTerms,
    target: &Target,
    hb: &[usize],
    ab: &[usize],
) -> (f64, Vec<(usize, usize)>) {
    let fh = fractions(&hb.iter().map(|&i| tree.pivot[i]).collect::<Vec<_>>());
    let fa = fractions(&ab.iter().map(|&j| target.position[j]).collect::<Vec<_>>());
    let k = |s: usize, t: usize| -> f64 {
        let (h, a) = (hb[s], ab[t]);
        // K_Pos at the node's pivot, where its joint will sit (see `joints::set_pivots`).
        let pos = (tree.pivot[h] - target.position[a]).norm() / target.height;
        let perc = (fh[s] - fa[t]).abs();
        let deg = terms.degree[h].abs_diff(target.degree(a)) as f64;
        let pin = target.pin[a].map_or(0.0, |p| {
            PIN_WEIGHT * (tree.pivot[h] - p).norm() / target.height
        });
        ALPHA[0] * pos + ALPHA[1] * perc + ALPHA[2] * deg
            - ALPHA[3] * terms.betweenness[h]
            - ALPHA[4] * terms.area[h]
            + pin
    };
    if hb.len() <= ab.len() {
        let (q, t) = monotone_match(hb.len(), ab.len(), &k);
        (
            q,
            t.iter().enumerate().map(|(s, &t)| (hb[s], ab[t])).collect(),
        )
    } else {
        // Roles swap (§8.2): every template joint gets a distinct node, in order.
        let (q, t) = monotone_match(ab.len(), hb.len(), &|s, t| k(t, s));
        (
            q,
            t.iter().enumerate().map(|(s, &t)| (hb[t], ab[s])).collect(),
        )
    }
}

/// The cheapest strictly increasing map t(s) of `short` items (0..s_len) into `long` items
/// (0..t_len), s_len ≤ t_len, by dynamic programming over the trellis (§8.4). Returns Σ cost and t.
pub fn monotone_match(
    s_len: usize,
    t_len: usize,
    cost: &dyn Fn(usize, usize) -> f64,
) -> (f64, Vec<usize>) {
    if s_len == 0 || s_len > t_len {
        return (0.0, Vec::new());
    }
    let slack = t_len - s_len;
    let mut d = vec![vec![f64::INFINITY; t_len]; s_len];
    let mut from = vec![vec![usize::MAX; t_len]; s_len];
    for (t, cell) in d[0].iter_mut().enumerate().take(slack + 1) {
        *cell = cost(0, t);
    }
    for s in 1..s_len {
        let mut best = (f64::INFINITY, usize::MAX);
        for t in s..=slack + s {
            if d[s - 1][t - 1] < best.0 {
                best = (d[s - 1][t - 1], t - 1);
            }
            d[s][t] = cost(s, t) + best.0;
            from[s][t] = best.1;
        }
    }
    let last = &d[s_len - 1];
    let mut t = (s_len - 1..t_len)
        .min_by(|&a, &b| last[a].total_cmp(&last[b]).then(a.cmp(&b)))
        .unwrap_or(s_len - 1);
    let q = last[t];
    let mut path = vec![t; s_len];
    for s in (1..s_len).rev() {
        t = from[s][t];
        path[s - 1] = t;
    }
    (q, path)
}
