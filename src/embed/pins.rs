//! What a hint means for the discrete search and the split: a pin on **any** joint fixes the limb
//! through it, not just that joint.
//!
//! Every template joint other than the search root lies on exactly one reduced chain (§5 of Baran &
//! Popović 2007: the reduced skeleton's edges are chains of full bones), at the cumulative template
//! length fraction `f` of that chain (`splitPaths`, §4.2). A pin on a chain's *end* restricts that
//! reduced joint's candidates ([`super::candidates`]); a pin *inside* a chain becomes a [`PathPin`]:
//! a placement of the chain's end is allowed only if the point at fraction `f` along the embedded graph
//! path passes within the hint's ball (grown by the local sphere radius, since the path runs through
//! sphere centres on the limb's axis while the user clicks near its surface). The chain's end is thus
//! re-chosen so that the limb runs through the pin, and [`anchored_split`] spreads the chain's free
//! joints along the path between the pins.

use super::penalty::split_polyline;
use super::reduced::Reduced;
use crate::embed::hints::ResolvedHint;
use crate::geom::{JointId, P3, V3};
use crate::skeleton::Skeleton;

/// A hint on a joint strictly inside a reduced chain (normalized frame).
#[derive(Clone, Debug, PartialEq)]
pub struct ChainHint {
    /// Reduced joint (search order index) whose chain holds the pinned joint.
    pub idx: usize,
    /// The pinned joint.
    pub joint: JointId,
    /// Cumulative template length fraction of the joint along the chain (0 … 1).
    pub fraction: f64,
    /// Hint position, **normalized frame**.
    pub position: P3,
    /// Hint radius, normalized units.
    pub radius: f64,
    /// The chain ends in an end marker, whose path the split extends to the surface.
    pub extend: bool,
}

/// A [`ChainHint`] in the search's frame (template frame, centred: see [`super::penalty::Ctx`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PathPin {
    /// Reduced joint whose chain must pass the pin.
    pub idx: usize,
    /// Fraction along the chain.
    pub fraction: f64,
    /// Hint position, search frame.
    pub at: V3,
    /// Hint radius.
    pub radius: f64,
    /// Extend the path past its last sphere centre by that sphere's radius first (as the split
    /// extends end chains to the surface).
    pub extend: bool,
}

/// Every hint on its chain (none for the search root). A hint on a chain's end (fraction 1) adds
/// nothing to its candidate restriction but marks the chain as pinned: its length and symmetry are
/// then the user's call, not penalties ([`super::penalty::Ctx`]).
pub fn chain_hints(skel: &Skeleton, red: &Reduced, hints: &[ResolvedHint]) -> Vec<ChainHint> {
    let mut out = Vec::new();
    for h in hints {
        for (idx, rj) in red.joints.iter().enumerate() {
            let last = rj.chain.len().saturating_sub(1);
            let Some(i) = (1..=last).find(|i| rj.chain[*i] == h.joint) else {
                continue;
            };
            out.push(ChainHint {
                idx,
                joint: h.joint,
                fraction: rj.fractions[i],
                position: h.position,
                radius: h.radius,
                // A pinned end is not extended by the split.
                extend: i < last && skel.joints[rj.full.0].end,
            });
        }
    }
    out
}

/// True if the path (parent → child sphere centres, search frame, with their radii) meets `pin`:
/// the point at the pin's fraction lies within the hint radius plus the local sphere radius.
pub fn path_meets(path: &[V3], radii: &[f64], pin: &PathPin) -> bool {
    if path.is_empty() {
        return false;
    }
    let mut pts = path.to_vec();
    let mut rad = radii.to_vec();
    if pin.extend && pts.len() >= 2 {
        let n = pts.len();
        let d = pts[n - 1] - pts[n - 2];
        let r = rad.last().copied().unwrap_or(0.0);
        if d.norm() > 1e-12 {
            pts.push(pts[n - 1] + d / d.norm() * r);
            rad.push(0.0);
        }
    }
    let Some(p) = split_polyline(&pts, &[pin.fraction]).pop() else {
        return false;
    };
    // The sphere nearest to the point gives the limb's local radius there.
    let local = pts
        .iter()
        .zip(&rad)
        .min_by(|a, b| (a.0 - p).norm().total_cmp(&(b.0 - p).norm()))
        .map_or(0.0, |(_, r)| *r);
    (p - pin.at).norm() <= pin.radius + local
}

/// Place a chain's joints along `path` (parent → child, normalized frame): `pinned[i]` fixes chain
/// entry `i`. Free joints between two fixed entries go at their relative template fractions along the
/// stretch of the path between the fixed entries' nearest path points, so the limb follows the
/// shape rather than a straight line. Returns one position per chain entry.
pub fn anchored_split(path: &[V3], fractions: &[f64], pinned: &[Option<P3>]) -> Vec<P3> {
    let n = fractions.len();
    let plain: Vec<P3> = split_polyline(path, fractions)
        .into_iter()
        .map(P3::from)
        .collect();
    if n < 3 || pinned[1..n - 1].iter().all(Option::is_none) || path.len() < 2 {
        return (0..n).map(|i| pinned[i].unwrap_or(plain[i])).collect();
    }
    let arc = arc_lengths(path);
    let total = arc.last().copied().unwrap_or(0.0);
    // Fixed entries: the ends, and the pins at their nearest path points (kept in chain order).
    let mut fixed: Vec<(usize, f64)> = vec![(0, 0.0)];
    for (i, p) in pinned.iter().enumerate().take(n - 1).skip(1) {
        if let Some(p) = p {
            let lo = fixed.last().map_or(0.0, |f| f.1);
            fixed.push((i, nearest_arc(path, &arc, &p.coords).max(lo)));
        }
    }
    fixed.push((n - 1, total));
    let mut out: Vec<P3> = (0..n).map(|i| pinned[i].unwrap_or(plain[i])).collect();
    for w in fixed.windows(2) {
        let ((a, sa), (b, sb)) = (w[0], w[1]);
        let span = (fractions[b] - fractions[a]).max(1e-12);
        for (i, slot) in out.iter_mut().enumerate().take(b).skip(a + 1) {
            let t = ((fractions[i] - fractions[a]) / span).clamp(0.0, 1.0);
            *slot = P3::from(at_arc(path, &arc, sa + (sb - sa) * t));
        }
    }
    out
}

fn arc_lengths(path: &[V3]) -> Vec<f64> {
    let mut acc = 0.0;
    let mut out = vec![0.0];
    for w in path.windows(2) {
        acc += (w[1] - w[0]).norm();
        out.push(acc);
    }
    out
}

/// Arc length of the point of `path` nearest to `p`.
fn nearest_arc(path: &[V3], arc: &[f64], p: &V3) -> f64 {
    let mut best = (f64::INFINITY, 0.0);
    for (k, w) in path.windows(2).enumerate() {
        let d = w[1] - w[0];
        let l2 = d.norm_squared();
        let t = if l2 > 0.0 {
            ((p - w[0]).dot(&d) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dist = (w[0] + d * t - p).norm();
        if dist < best.0 {
            best = (dist, arc[k] + t * (arc[k + 1] - arc[k]));
        }
    }
    best.1
}

/// The point at arc length `s` along `path`.
fn at_arc(path: &[V3], arc: &[f64], s: f64) -> V3 {
    for (k, w) in path.windows(2).enumerate() {
        let (a, b) = (arc[k], arc[k + 1]);
        if s <= b || k + 2 == path.len() {
            let t = if b > a {
                ((s - a) / (b - a)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            return w[0] + (w[1] - w[0]) * t;
        }
    }
    path.first().copied().unwrap_or_else(V3::zeros)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::load_template;

    #[test]
    fn a_hand_pin_lies_inside_the_arm_chain() {
        let s = load_template("human").unwrap();
        let red = Reduced::new(&s);
        let hand = s.find("LeftHand").unwrap();
        let hints = [ResolvedHint {
            joint: hand,
            position: P3::new(0.1, 0.5, 0.5),
            radius: 0.03,
        }];
        let ch = chain_hints(&s, &red, &hints);
        assert_eq!(ch.len(), 1);
        let end = red.joints[ch[0].idx].full;
        assert_eq!(s.joints[end.0].name, "LeftHand_End");
        assert!(ch[0].fraction > 0.6 && ch[0].fraction < 1.0 && ch[0].extend);
        // A hint on the chain's end sits at fraction 1, unextended.
        let end_hint = [ResolvedHint {
            joint: end,
            ..hints[0].clone()
        }];
        let ch = chain_hints(&s, &red, &end_hint);
        assert_eq!((ch[0].fraction, ch[0].extend), (1.0, false));
    }

    #[test]
    fn the_path_must_pass_the_pin_at_its_fraction() {
        let path = [V3::zeros(), V3::new(1.0, 0.0, 0.0)];
        let pin = |x: f64| PathPin {
            idx: 1,
            fraction: 0.5,
            at: V3::new(x, 0.05, 0.0),
            radius: 0.02,
            extend: false,
        };
        let radii = [0.04, 0.04];
        assert!(path_meets(&path, &radii, &pin(0.5)));
        assert!(
            !path_meets(&path, &radii, &pin(0.8)),
            "right place, wrong fraction"
        );
        // Extension by the end sphere's radius moves the fraction point outward.
        let ext = PathPin {
            extend: true,
            at: V3::new(0.52, 0.0, 0.0),
            radius: 0.001,
            ..pin(0.0)
        };
        assert!(path_meets(&path, &radii, &ext));
    }

    #[test]
    fn anchored_split_follows_the_bent_path_between_pins() {
        // An L-shaped path; the middle joint is pinned at the corner, the free ones follow the legs.
        let path = [V3::zeros(), V3::new(1.0, 0.0, 0.0), V3::new(1.0, 1.0, 0.0)];
        let fr = [0.0, 0.25, 0.5, 0.75, 1.0];
        let pin = Some(P3::new(1.0, 0.0, 0.0));
        let q = anchored_split(&path, &fr, &[None, None, pin, None, None]);
        assert!((q[1] - P3::new(0.5, 0.0, 0.0)).norm() < 1e-9, "{}", q[1]);
        assert!((q[3] - P3::new(1.0, 0.5, 0.0)).norm() < 1e-9, "{}", q[3]);
        // Pinned off the path's middle: the free joints spread over the unequal stretches.
        let late = Some(P3::new(1.0, 0.5, 0.0));
        let q = anchored_split(&path, &fr, &[None, None, late, None, None]);
        assert!((q[1] - P3::new(0.75, 0.0, 0.0)).norm() < 1e-9, "{}", q[1]);
        assert!((q[3] - P3::new(1.0, 0.75, 0.0)).norm() < 1e-9, "{}", q[3]);
    }
}
