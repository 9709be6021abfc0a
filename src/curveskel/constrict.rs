//! Joints where a branch's thickness steps down (robust mode; absent from the paper, whose middle
//! joints come from bending only, §8.2): a fish's tail base, a wrist, a neck. A straight branch
//! that is thick on one side and thin on the other bends where the two parts meet — the minima
//! rule of shape decomposition (Hoffman & Richards 1984: parts meet at constrictions), which is
//! also where artists put the joint (a fish's spine joint at the tail base, a hand's at the wrist).
//!
//! A *step* at arc position s: the smoothed radius one local radius before s is at least
//! [`STEP_RATIO`] times the radius one local radius after it (or the reverse). A tapering tip (a
//! cone: a tentacle's end, a nose) is not a step: past the thin side the radius keeps falling by
//! the same ratio within two of its radii, where a constriction's thin part keeps its thickness.
//! Slender cones never reach the ratio at all (half-angle tangent below 0.2). Within each run of
//! steps the strongest one is the joint. The thin side must be at least as thick as the smallest
//! feature the pruning keeps (`prune::MIN_PROTRUSION` of the model): a snout's point is no limb.

use crate::geom::P3;

/// Thickness ratio (thick side over thin side, one local radius either way) that makes a step: the
/// thin part is at least a third thinner, well above the raster's one-pixel radius noise (the
/// radius is smoothed over about one radius first).
pub const STEP_RATIO: f64 = 1.5;

/// Indices into the branch polyline `pts` (radii `radius`) of the thickness steps, in order, at
/// least `end_gap` of arc from either end of the branch, whose thin side is at least `min_radius`
/// thick (thinner parts are below the size a limb needs: a snout's point, a whisker).
pub fn steps(pts: &[P3], radius: &[f64], end_gap: f64, min_radius: f64) -> Vec<usize> {
    let n = pts.len();
    if n < 5 {
        return Vec::new();
    }
    let arc = arc_lengths(pts);
    let total = arc[n - 1];
    let rs = smooth(radius, &arc);
    let at = |s: f64| nearest(&arc, s.clamp(0.0, total));
    let mut score = vec![0.0f64; n];
    for (k, sc) in score.iter_mut().enumerate() {
        let w = rs[k];
        if arc[k] - w < 0.0 || arc[k] + w > total {
            continue;
        }
        let (before, after) = (at(arc[k] - w), at(arc[k] + w));
        for (thick, thin, dir) in [(before, after, 1.0), (after, before, -1.0)] {
            let ratio = rs[thick] / rs[thin].max(1e-12);
            // Past the thin side by two of its radii (or to the branch end): still as thick?
            let far = at(arc[thin] + dir * 2.0 * rs[thin]);
            let plateau = rs[thin] / rs[far].max(1e-12) < STEP_RATIO;
            if ratio >= STEP_RATIO && plateau && rs[thin] >= min_radius {
                *sc = sc.max(ratio);
            }
        }
    }
    strongest_per_run(&score, &arc, end_gap)
}

/// The index of the highest score in each run of positive scores, away from the ends.
fn strongest_per_run(score: &[f64], arc: &[f64], end_gap: f64) -> Vec<usize> {
    let n = score.len();
    let total = arc[n - 1];
    let mut out = Vec::new();
    let mut k = 0;
    while k < n {
        if score[k] <= 0.0 {
            k += 1;
            continue;
        }
        let start = k;
        while k < n && score[k] > 0.0 {
            k += 1;
        }
        // The middle of the near-maximal stretch (a sharp step scores the same over a radius).
        let top = score[start..k].iter().copied().fold(0.0, f64::max);
        let near: Vec<usize> = (start..k).filter(|&i| score[i] >= 0.99 * top).collect();
        let best = near[near.len() / 2];
        if arc[best] >= end_gap && total - arc[best] >= end_gap {
            out.push(best);
        }
    }
    out
}

/// Cumulative arc length along the polyline.
pub fn arc_lengths(pts: &[P3]) -> Vec<f64> {
    let mut arc = vec![0.0; pts.len()];
    for k in 1..pts.len() {
        arc[k] = arc[k - 1] + (pts[k] - pts[k - 1]).norm();
    }
    arc
}

/// The node whose arc position is nearest `s` (arc is non-decreasing).
fn nearest(arc: &[f64], s: f64) -> usize {
    let i = arc.partition_point(|&a| a < s);
    if i == 0 {
        0
    } else if i >= arc.len() {
        arc.len() - 1
    } else if s - arc[i - 1] <= arc[i] - s {
        i - 1
    } else {
        i
    }
}

/// Radius averaged over one local radius of arc on each side (the chord-midpoint radii jitter by a
/// pixel as sleeve triangles alternate sides).
fn smooth(radius: &[f64], arc: &[f64]) -> Vec<f64> {
    let n = radius.len();
    (0..n)
        .map(|k| {
            let (lo, hi) = (
                arc.partition_point(|&a| a < arc[k] - radius[k]),
                arc.partition_point(|&a| a <= arc[k] + radius[k]),
            );
            let win = &radius[lo.min(k)..hi.max(k + 1)];
            win.iter().sum::<f64>() / win.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A straight branch along x with radius `r(x)`, nodes every 0.005.
    fn branch(len: f64, r: impl Fn(f64) -> f64) -> (Vec<P3>, Vec<f64>) {
        let n = (len / 0.005) as usize + 1;
        let pts: Vec<P3> = (0..n)
            .map(|k| P3::new(k as f64 * 0.005, 0.0, 0.0))
            .collect();
        let radius = pts.iter().map(|p| r(p.x)).collect();
        (pts, radius)
    }

    #[test]
    fn a_thick_body_and_a_thin_tail_step_at_the_tail_base() {
        // Body radius 0.1 over [0, 0.6], tail radius 0.04 over [0.6, 0.9].
        let (pts, r) = branch(0.9, |x| if x < 0.6 { 0.1 } else { 0.04 });
        let s = steps(&pts, &r, 0.05, 0.01);
        assert_eq!(s.len(), 1, "{s:?}");
        let x = pts[s[0]].x;
        assert!((x - 0.6).abs() < 0.06, "step at {x}");
    }

    #[test]
    fn a_uniform_limb_and_a_tapering_cone_have_no_step() {
        let (pts, r) = branch(0.6, |_| 0.05);
        assert!(steps(&pts, &r, 0.05, 0.01).is_empty());
        // A cone to a sharp tip (half-angle tangent 0.3): a nose or a tentacle's end, not a joint.
        let (pts, r) = branch(0.6, |x| 0.3 * (0.6 - x).max(0.002));
        assert!(steps(&pts, &r, 0.05, 0.01).is_empty());
        // A slender cone (tangent 0.08).
        let (pts, r) = branch(0.6, |x| 0.08 * (0.6 - x).max(0.002) + 0.005);
        assert!(steps(&pts, &r, 0.05, 0.01).is_empty());
    }
}
