//! The body tentacles radiate from (robust mode). An octopus seen from above shows its mantle as
//! the disc the tentacles leave, so the outline gives the hub a joint but the sac above it no
//! branch (the paper's occlusion limit, §12). The sac is too short for the hidden-part rule
//! (`hidden`): it reaches only a hub radius or two from the hub, inside the reach of the hub's own
//! bones. But a body many similar limbs radiate from is a part of its own, whatever its length:
//!
//! * The hub is a joint with at least `names::TENTACLE_MIN` tentacles hanging from it.
//! * The surface the tentacles cover is within [`hidden::UNBONED_RADII`] local radii of a tentacle
//!   bone past the hub's own bones (those run inside the body from the hub to each tentacle's base,
//!   so they say nothing about where the body's surface is).
//! * The uncovered surface holding the vertex nearest the hub is the body. Its chain follows the
//!   centroids of the level sets of the surface distance from where the tentacles meet it (a
//!   Reeb-graph skeleton, Lazarus & Verroust 1999, as in `hidden`): those rings close round the
//!   sac and rise to its far end. It hangs from the hub, named `mantle_*`, when it ends outside
//!   the hub's ball (else the body is the hub itself).

use std::cmp::Reverse;

use super::hidden::{self, adjacency, components, rings};
use super::joints::{BJoint, Built};
use super::names::TENTACLE_MIN;
use super::prune::MIN_PROTRUSION;
use super::CurveMode;
use crate::geom::P3;

/// Rings per hub radius along the body's surface: the sac is only a few hub radii round, and two
/// rings per radius give the bend rule (`joints::middle_joints`) enough points to place a joint.
const RINGS_PER_RADIUS: f64 = 2.0;

/// Give the tentacles' hub a chain into the body they radiate from; returns whether it got one.
pub fn add_chain(
    built: &mut Built,
    pts: &[P3],
    tris: &[[u32; 3]],
    extent: f64,
    mode: CurveMode,
) -> bool {
    let Some(hub) = tentacle_hub(&built.joints) else {
        return false;
    };
    let min_gap = MIN_PROTRUSION * extent;
    let covered: Vec<bool> = pts
        .iter()
        .map(|p| match nearest_limb_bone(&built.joints, hub, p) {
            Some((j, d)) => {
                let r = built.joints[j].r;
                d <= hidden::UNBONED_RADII * r || d - r <= min_gap
            }
            None => false,
        })
        .collect();
    let uncovered: Vec<bool> = covered.iter().map(|c| !c).collect();
    let hub_pos = built.joints[hub].pos;
    let Some(nearest) = (0..pts.len()).filter(|&v| uncovered[v]).min_by(|&a, &b| {
        (pts[a] - hub_pos)
            .norm()
            .total_cmp(&(pts[b] - hub_pos).norm())
    }) else {
        return false;
    };
    let adj = adjacency(pts.len(), tris);
    let Some(body) = components(&adj, &uncovered)
        .into_iter()
        .find(|c| c.binary_search(&nearest).is_ok())
    else {
        return false;
    };
    let seeds: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&v| adj[v].iter().any(|&m| covered[m]))
        .collect();
    if seeds.is_empty() {
        return false;
    }
    let r = built.joints[hub].r.max(min_gap);
    let rings = rings(pts, &adj, &body, &seeds, r / RINGS_PER_RADIUS);
    let Some(&(end, _)) = rings.last() else {
        return false;
    };
    if rings.len() < 2 || (end - hub_pos).norm() <= r {
        return false;
    }
    hidden::attach(built, hub, &rings, extent, mode);
    true
}

/// The joint most tentacles hang from, if at least `TENTACLE_MIN` do.
fn tentacle_hub(joints: &[BJoint]) -> Option<usize> {
    let mut count = vec![0usize; joints.len()];
    for j in joints.iter().filter(|j| j.name.starts_with("tentacle")) {
        if let Some(p) = j
            .parent
            .filter(|&p| !joints[p].name.starts_with("tentacle"))
        {
            count[p] += 1;
        }
    }
    let best = (0..joints.len()).max_by_key(|&j| (count[j], Reverse(j)))?;
    (count[best] >= TENTACLE_MIN).then_some(best)
}

/// The nearest tentacle bone of `p` that does not start at `hub` (owner joint, distance).
fn nearest_limb_bone(joints: &[BJoint], hub: usize, p: &P3) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (c, j) in joints.iter().enumerate() {
        let Some(pa) = j.parent else { continue };
        if pa == hub || !j.name.starts_with("tentacle") {
            continue;
        }
        let (a, b) = (joints[pa].pos, j.pos);
        let ab = b - a;
        let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-18)).clamp(0.0, 1.0);
        let d = (p - (a + ab * t)).norm();
        if best.is_none_or(|(_, bd)| d < bd) {
            // The thicker end owns the bone's surface (as in `hidden`).
            best = Some((if t < 0.5 { pa } else { c }, d));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(name: &str, parent: Option<usize>) -> BJoint {
        BJoint {
            name: name.into(),
            parent,
            pos: P3::origin(),
            end: false,
            key: true,
            r: 0.1,
        }
    }

    fn star(arms: usize) -> Vec<BJoint> {
        let mut j = vec![joint("root", None), joint("branch_0_0", Some(0))];
        for k in 0..arms {
            j.push(joint(&format!("tentacle_{k}_0"), Some(0)));
            let base = j.len() - 1;
            j.push(joint(&format!("tentacle_{k}_1"), Some(base)));
        }
        j
    }

    #[test]
    fn the_hub_carries_at_least_six_tentacles() {
        assert_eq!(tentacle_hub(&star(8)), Some(0));
        assert_eq!(tentacle_hub(&star(TENTACLE_MIN)), Some(0));
        // Five arms are a starfish's or a hand's, no tentacles' body (`names`).
        assert_eq!(tentacle_hub(&star(TENTACLE_MIN - 1)), None);
    }

    #[test]
    fn no_hub_no_chain() {
        let mut built = Built {
            joints: star(4),
            ..Built::default()
        };
        let pts = vec![P3::new(1.0, 0.0, 0.0), P3::new(0.0, 1.0, 0.0), P3::origin()];
        assert!(!add_chain(
            &mut built,
            &pts,
            &[[0, 1, 2]],
            1.0,
            CurveMode::Robust
        ));
        assert_eq!(built.joints.len(), 2 + 2 * 4);
    }
}
