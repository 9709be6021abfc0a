//! Where a bend joint sits along its branch (robust mode). The 18° test (paper §8.2) decides
//! *that* a branch bends between two anchors; Douglas–Peucker puts the candidate at the point
//! farthest from the chord, which on a gently curving body (a fish's spine curving into its tail)
//! is not where one joint best follows the curve. The paper's first design criterion is centrality:
//! every bone lies on the central path of its segment. So each bend joint slides along the branch,
//! between its neighbouring joints (or the branch ends), to the node where its two bones stay
//! closest to the curve: the least sum of squared distances of the curve's nodes to the two bones.
//! On a curve made of two straight parts that is the corner itself; on an arc, the point whose
//! tangent splits the turning.
//!
//! Thickness steps and the branch ends stay fixed (their place comes from the shape, not from the
//! bend), and a settled joint keeps at least `min_bone` from its neighbours, like any bend joint.

use crate::geom::P3;

/// Candidate places per stretch in the coarse pass of [`best_between`].
const COARSE: usize = 32;

/// Slide each bend joint (`bends`, indices into `pts`, ascending) to the node of least squared
/// deviation of its two bones from the curve, between its neighbours in `anchors` ∪ `bends` ∪
/// the branch ends; keeps every joint at least `min_bone` (straight distance) from its neighbours.
/// Returns the joints (bends and anchors) in ascending order.
pub fn settle(pts: &[P3], bends: &[usize], anchors: &[usize], min_bone: f64) -> Vec<usize> {
    let n = pts.len();
    let mut all: Vec<(usize, bool)> = bends
        .iter()
        .map(|&k| (k, true))
        .chain(anchors.iter().map(|&k| (k, false)))
        .collect();
    all.sort_unstable();
    all.dedup_by_key(|j| j.0);
    // Two sweeps: a joint that moved changes its neighbours' best place a little, not more.
    for _ in 0..2 {
        for i in 0..all.len() {
            let (k, movable) = all[i];
            if !movable {
                continue;
            }
            let a = if i == 0 { 0 } else { all[i - 1].0 };
            let b = all.get(i + 1).map_or(n - 1, |j| j.0);
            all[i].0 = best_between(pts, a, b, k, min_bone);
        }
    }
    all.into_iter().map(|j| j.0).collect()
}

/// The node in (a, b) of least deviation of the two bones a→k, k→b from the curve, at least
/// `min_bone` from a and b; `current` when none qualifies or on a tie (nearest wins). Coarse to
/// fine: every [`COARSE`]-th of the stretch first, then every node around the best (each cost is
/// linear in the stretch, so a full scan would be quadratic per joint).
fn best_between(pts: &[P3], a: usize, b: usize, current: usize, min_bone: f64) -> usize {
    let cost = |k: usize| deviation(pts, a, k) + deviation(pts, k, b);
    let fits =
        |k: usize| (pts[k] - pts[a]).norm() >= min_bone && (pts[b] - pts[k]).norm() >= min_bone;
    let mut best = (cost(current), 0usize, current);
    let consider = |k: usize, best: &mut (f64, usize, usize)| {
        if !fits(k) {
            return;
        }
        let (c, dist) = (cost(k), k.abs_diff(current));
        // Ties (a straight stretch: every place is as good) keep the joint where it was.
        if c < best.0 - 1e-12 || ((c - best.0).abs() <= 1e-12 && dist < best.1) {
            *best = (c, dist, k);
        }
    };
    let stride = ((b - a) / COARSE).max(1);
    for k in (a + 1..b).step_by(stride) {
        consider(k, &mut best);
    }
    let centre = best.2;
    for k in centre.saturating_sub(stride).max(a + 1)..(centre + stride).min(b) {
        consider(k, &mut best);
    }
    best.2
}

/// Sum of squared distances of the nodes a..=b to the segment pts[a]–pts[b].
fn deviation(pts: &[P3], a: usize, b: usize) -> f64 {
    let (pa, ab) = (pts[a], pts[b] - pts[a]);
    let len2 = ab.norm_squared();
    pts[a..=b]
        .iter()
        .map(|q| {
            let t = if len2 > 0.0 {
                ((q - pa).dot(&ab) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (q - (pa + ab * t)).norm_squared()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A polyline along x (spacing 0.005) that is straight up to `corner` and then turns by
    /// `degrees` in the x–z plane, `len` long in all.
    fn bent(len: f64, corner: f64, degrees: f64) -> Vec<P3> {
        let n = (len / 0.005) as usize + 1;
        let (c, s) = (degrees.to_radians().cos(), degrees.to_radians().sin());
        (0..n)
            .map(|k| {
                let x = k as f64 * 0.005;
                if x <= corner {
                    P3::new(x, 0.0, 0.0)
                } else {
                    P3::new(corner + (x - corner) * c, 0.0, (x - corner) * s)
                }
            })
            .collect()
    }

    #[test]
    fn a_bend_joint_moves_to_the_corner() {
        let pts = bent(1.0, 0.35, 40.0);
        // Start the joint well away from the corner (node 140 is at x = 0.7 of arc).
        let out = settle(&pts, &[140], &[], 0.05);
        assert_eq!(out.len(), 1);
        let arc = out[0] as f64 * 0.005;
        assert!(
            (arc - 0.35).abs() < 0.011,
            "joint at arc {arc}, corner at 0.35"
        );
    }

    #[test]
    fn anchors_stay_and_a_straight_stretch_keeps_its_joint() {
        let pts = bent(1.0, 0.5, 0.0);
        let out = settle(&pts, &[100], &[30], 0.05);
        assert_eq!(out, vec![30, 100]);
    }
}
