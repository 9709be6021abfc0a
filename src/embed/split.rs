//! `splitPaths` (Baran & Popović 2007 §3.4; docs/algorithms.md#split), with chain ends extended to the surface.
//!
//! Each reduced chain's intermediate joints go at their cumulative template length fractions along the
//! graph's shortest path (through sphere centres). A **pinned** (hinted) joint goes exactly to its hint
//! position; the unpinned joints between two fixed points (chain ends or pins) are spread by their
//! relative fractions along the stretch of the path between them ([`anchored_split`]), so a pinned
//! limb still follows the shape.

use std::collections::HashMap;

use super::paths::Paths;
use super::pins::anchored_split;
use super::reduced::{RJoint, Reduced};
use crate::discretize::Field;
use crate::discretize::SphereGraph;
use crate::geom::{P3, V3};
use crate::skeleton::Skeleton;

/// Where a chain ending in an `end` joint really ends: see [`extension`].
pub struct Ends<'a> {
    /// The template.
    pub skel: &'a Skeleton,
    /// The field.
    pub field: &'a dyn Field,
    /// Template bone vector per child joint (normalized frame), for chains collapsed to a point.
    pub template_dir: &'a [V3],
}

/// Full-skeleton joint positions (normalized frame) from a discrete match (search order). Chains
/// ending in an unpinned `end` joint are first extended to just inside the surface (see
/// [`extension`]), so the intermediate joints are spread over the limb's real length. Returns the
/// positions and the end joints that were extended (refinement keeps them fixed).
pub fn split(
    g: &SphereGraph,
    paths: &Paths,
    red: &Reduced,
    ends: &Ends,
    matched: &[u32],
    pins: &HashMap<usize, P3>,
) -> (Vec<P3>, Vec<usize>) {
    let n_full = ends.skel.joints.len();
    let mut extended = Vec::new();
    let center = |v: u32| sphere_center(g, v);
    let mut q = vec![P3::new(0.5, 0.5, 0.5); n_full];
    for (idx, rj) in red.joints.iter().enumerate() {
        let Some(&v) = matched.get(idx) else { continue };
        let Some(p) = rj.parent else {
            q[rj.full.0] = pins.get(&rj.full.0).copied().unwrap_or_else(|| center(v));
            continue;
        };
        let Some(&pv) = matched.get(p) else { continue };
        let mut path: Vec<V3> = paths
            .path(pv, v)
            .iter()
            .map(|u| center(*u).coords)
            .collect();
        if path.is_empty() {
            path = vec![center(pv).coords, center(v).coords];
        }
        let leaf = rj.full.0;
        if ends.skel.joints[leaf].end
            && !pins.contains_key(&leaf)
            && extend_end(ends, leaf, &mut path)
        {
            extended.push(leaf);
        }
        if let Some(pin) = pins.get(&leaf) {
            // A pinned end: the chain runs to the pin itself.
            if path.last().is_none_or(|l| (l - pin.coords).norm() > 1e-9) {
                path.push(pin.coords);
            }
        }
        let pts = anchored_split(&path, &rj.fractions, &chain_pins(rj, pins));
        for (i, j) in rj.chain.iter().enumerate().skip(1) {
            q[j.0] = pts[i];
        }
    }
    (q, extended)
}

/// Centre of sphere `v` of `g` (the middle of the unit box for an unknown sphere).
fn sphere_center(g: &SphereGraph, v: u32) -> P3 {
    g.spheres
        .get(v as usize)
        .map_or(P3::new(0.5, 0.5, 0.5), |s| s.center)
}

/// Extend the path of the chain ending in `leaf` to just inside the surface (along its last
/// segment, or the template bone when that is degenerate); true if it moved.
fn extend_end(ends: &Ends, leaf: usize, path: &mut Vec<V3>) -> bool {
    let n = path.len();
    let last = path[n - 1];
    let mut dir = if n >= 2 {
        last - path[n - 2]
    } else {
        V3::zeros()
    };
    if dir.norm() < 1e-9 {
        dir = ends
            .template_dir
            .get(leaf)
            .copied()
            .unwrap_or_else(V3::zeros);
    }
    if let Some(tip) = extension(ends.field, &P3::from(last), &dir, MAX_EXTENSION) {
        path.push(tip.coords);
        return true;
    }
    false
}

/// The pin of each joint of `rj`'s chain (none for its first joint, the fixed chain start).
fn chain_pins(rj: &RJoint, pins: &HashMap<usize, P3>) -> Vec<Option<P3>> {
    rj.chain
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if i == 0 {
                None
            } else {
                pins.get(&j.0).copied()
            }
        })
        .collect()
}

/// Longest extension of a chain end, normalized units.
pub const MAX_EXTENSION: f64 = 0.15;

/// The search puts limb ends at sphere centres, one radius short of the extremity (and the head end
/// at the head's centre). March from `start` along `dir` until just inside the surface: the margin is
/// the smaller of 1% of the model and half the starting depth. `None` if it does not move.
pub fn extension(field: &dyn Field, start: &P3, dir: &V3, max_move: f64) -> Option<P3> {
    const STEP: f64 = 0.002;
    let len = dir.norm();
    let depth0 = -field.eval(start);
    if len < 1e-12 || depth0 <= 0.0 {
        return None;
    }
    let dir = dir / len;
    let margin = (0.01_f64).min(0.5 * depth0);
    let mut s = 0.0;
    while s + STEP <= max_move && -field.eval(&(start + dir * (s + STEP))) > margin {
        s += STEP;
    }
    (s > 0.0).then(|| start + dir * s)
}
