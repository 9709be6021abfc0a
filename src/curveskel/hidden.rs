//! Parts the primary silhouette cannot see (robust mode; the paper's limit §12: a part along the
//! view direction or over another part leaves no outline of its own). An octopus seen from above
//! hides its mantle behind the hub; a scorpion seen from above hides the curl of its raised tail
//! over its own back. Their surface is far from every bone the outline gave.
//!
//! * A surface vertex is **unboned** when its distance to the nearest bone exceeds
//!   [`UNBONED_RADII`] × that bone's local radius and that radius by at least
//!   `prune::MIN_PROTRUSION` of the model (a limb's surface lies about one radius from its bone).
//! * Each edge-connected set of unboned vertices reaching at least [`MIN_PART_RADII`] radii beyond
//!   the bone where it starts is a hidden part (smaller sets are bumps, as in the pruning).
//! * Its chain follows the level sets of the surface distance from where it meets the boned
//!   surface (a Reeb-graph skeleton: Lazarus & Verroust 1999): on a tube the rings of equal
//!   distance go round the tube, so their centroids follow its axis through any curl. Rings are one
//!   local radius apart; the 18° bends and bone lengths of the other branches then apply
//!   (`joints::middle_joints`).
//! * The chain hangs from the joint nearest where the part meets the skeleton; at a leaf end the
//!   limb goes on (its name continues), else it is a branch of its own (`mantle` when it leaves the
//!   tentacles' hub: the body they radiate from).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::joints::{self, BJoint, Built};
use super::prune::{Branch, MIN_PROTRUSION};
use super::CurveMode;
use crate::geom::P3;

/// A vertex farther than this many local radii from its nearest bone is not covered by it.
pub const UNBONED_RADII: f64 = 2.0;
/// A hidden part reaches at least this many radii (of the bone it starts from) beyond that bone:
/// a limb is longer than wide (the pruning's bump rule, `prune::PRUNE_RATIO`, counted from the
/// surface instead of the axis).
pub const MIN_PART_RADII: f64 = 3.0;

/// Add a chain for every hidden part of the mesh (`pts`: welded vertices in frame coordinates,
/// `tris` the triangles). Returns how many parts got one.
pub fn add_chains(
    built: &mut Built,
    pts: &[P3],
    tris: &[[u32; 3]],
    extent: f64,
    mode: CurveMode,
) -> usize {
    if built.joints.len() < 2 {
        return 0;
    }
    let nearest: Vec<(usize, f64)> = pts.iter().map(|p| nearest_bone(&built.joints, p)).collect();
    let min_gap = MIN_PROTRUSION * extent;
    let unboned: Vec<bool> = nearest
        .iter()
        .map(|&(j, d)| {
            let r = built.joints[j].r;
            d > UNBONED_RADII * r && d - r > min_gap
        })
        .collect();
    let adj = adjacency(pts.len(), tris);
    let mut added = 0;
    for part in components(&adj, &unboned) {
        let seeds: Vec<usize> = part
            .iter()
            .copied()
            .filter(|&v| adj[v].iter().any(|&m| !unboned[m]))
            .collect();
        if seeds.is_empty() {
            continue; // a separate shell: the skin binds it to the nearest bone
        }
        let base = centroid(pts, &seeds);
        let at = nearest_joint(&built.joints, &base);
        let r = built.joints[at].r.max(min_gap);
        let reach = part.iter().map(|&v| nearest[v].1).fold(0.0, f64::max);
        if reach < MIN_PART_RADII * r {
            continue;
        }
        let rings = rings(pts, &adj, &part, &seeds, r);
        if rings.len() < 2 {
            continue;
        }
        attach(built, at, &rings, extent, mode);
        added += 1;
    }
    added
}

/// The nearest bone (child joint index) of `p` and its distance.
pub(super) fn nearest_bone(joints: &[BJoint], p: &P3) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (c, j) in joints.iter().enumerate() {
        let Some(pa) = j.parent else { continue };
        let (a, b) = (joints[pa].pos, j.pos);
        let ab = b - a;
        let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-18)).clamp(0.0, 1.0);
        let d = (p - (a + ab * t)).norm();
        if d < best.1 {
            // The bone's radius: its parent's (the thicker end owns the bone's surface).
            best = (if t < 0.5 { pa } else { c }, d);
        }
    }
    best
}

fn nearest_joint(joints: &[BJoint], p: &P3) -> usize {
    (0..joints.len())
        .min_by(|&a, &b| {
            (joints[a].pos - p)
                .norm()
                .total_cmp(&(joints[b].pos - p).norm())
        })
        .unwrap_or(0)
}

pub(super) fn adjacency(n: usize, tris: &[[u32; 3]]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for t in tris {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            adj[a as usize].push(b as usize);
            adj[b as usize].push(a as usize);
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
}

/// Edge-connected sets of the flagged vertices, each sorted, in order of their first vertex.
pub(super) fn components(adj: &[Vec<usize>], flag: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; adj.len()];
    let mut out = Vec::new();
    for s in (0..adj.len()).filter(|&v| flag[v]) {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut c = vec![s];
        let mut i = 0;
        while i < c.len() {
            for &m in &adj[c[i]] {
                if flag[m] && !seen[m] {
                    seen[m] = true;
                    c.push(m);
                }
            }
            i += 1;
        }
        c.sort_unstable();
        out.push(c);
    }
    out
}

fn centroid(pts: &[P3], ids: &[usize]) -> P3 {
    let s = ids
        .iter()
        .fold(crate::geom::V3::zeros(), |a, &v| a + pts[v].coords);
    P3::from(s / ids.len().max(1) as f64)
}

/// Centroids (and mean distance to them: the ring's radius) of the level sets of the surface
/// distance from `seeds` within `part`, every `step`, nearest first.
pub(super) fn rings(
    pts: &[P3],
    adj: &[Vec<usize>],
    part: &[usize],
    seeds: &[usize],
    step: f64,
) -> Vec<(P3, f64)> {
    let mut inside = vec![false; pts.len()];
    part.iter().for_each(|&v| inside[v] = true);
    let mut dist = vec![f64::INFINITY; pts.len()];
    // Distances as integer nanounits keep the heap's order total and the run deterministic.
    let mut heap = BinaryHeap::new();
    for &s in seeds {
        dist[s] = 0.0;
        heap.push(Reverse((0u64, s)));
    }
    while let Some(Reverse((d, v))) = heap.pop() {
        if d as f64 * 1e-9 > dist[v] {
            continue;
        }
        for &m in adj[v].iter().filter(|&&m| inside[m]) {
            let nd = dist[v] + (pts[m] - pts[v]).norm();
            if nd < dist[m] {
                dist[m] = nd;
                heap.push(Reverse(((nd * 1e9) as u64, m)));
            }
        }
    }
    let levels = part
        .iter()
        .map(|&v| dist[v])
        .filter(|d| d.is_finite())
        .fold(0.0, f64::max);
    let count = (levels / step).ceil() as usize;
    let mut bins: Vec<Vec<usize>> = vec![Vec::new(); count.max(1)];
    for &v in part.iter().filter(|&&v| dist[v].is_finite()) {
        let b = ((dist[v] / step) as usize).min(bins.len() - 1);
        bins[b].push(v);
    }
    bins.iter()
        .filter(|b| !b.is_empty())
        .map(|b| {
            let c = centroid(pts, b);
            let r = b.iter().map(|&v| (pts[v] - c).norm()).sum::<f64>() / b.len() as f64;
            (c, r)
        })
        .collect()
}

/// Hang the chain through `rings` from joint `at`: joints where the chain bends or grows long
/// (the branches' rules), the last ring's centroid as its end.
pub(super) fn attach(
    built: &mut Built,
    at: usize,
    rings: &[(P3, f64)],
    extent: f64,
    mode: CurveMode,
) {
    let mut pts = vec![built.joints[at].pos];
    let mut radius = vec![built.joints[at].r];
    for &(c, r) in rings {
        pts.push(c);
        radius.push(r);
    }
    let br = Branch {
        nodes: (0..pts.len()).collect(),
        pts: pts.clone(),
        radius,
    };
    let (mids, smooth) = joints::middle_joints(&br, extent, mode);
    let end = pts.len() - 1;
    let (prefix, first) = chain_name(built, at);
    let mut parent = at;
    built.joints[at].end = false;
    for (i, k) in mids.into_iter().chain([end]).enumerate() {
        let pos = if k == end { pts[end] } else { smooth[k] };
        built.joints.push(BJoint {
            name: format!("{prefix}{}", first + i),
            parent: Some(parent),
            pos,
            end: k == end,
            key: k == end,
            r: br.radius[k],
        });
        parent = built.joints.len() - 1;
    }
    built.key_count += 1;
    if first == 0 {
        built.branch_count += 1;
    }
}

/// The name prefix of a chain from joint `at` and its first index: a leaf end's limb goes on
/// (`tail_9_` from `tail_9_2`: 3); from the tentacles' hub, the mantle; else a new branch.
fn chain_name(built: &Built, at: usize) -> (String, usize) {
    let j = &built.joints[at];
    if j.end {
        if let Some((prefix, last)) = j.name.rsplit_once('_') {
            if let Ok(i) = last.parse::<usize>() {
                return (format!("{prefix}_"), i + 1);
            }
        }
    }
    let hub_of_tentacles = j.key
        && built
            .joints
            .iter()
            .any(|c| c.parent == Some(at) && c.name.starts_with("tentacle"));
    if hub_of_tentacles {
        return ("mantle_".to_string(), 0);
    }
    (format!("branch_{}_", built.branch_count), 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::V3;

    /// A tube of radius `r` (16 sides, open ends) along the curve `c(t)`, t in 0..=1, `rings`
    /// rings: vertices and triangles.
    fn tube(c: impl Fn(f64) -> P3, r: f64, rings: usize) -> (Vec<P3>, Vec<[u32; 3]>) {
        const SIDES: usize = 16;
        let mut pts = Vec::new();
        for i in 0..rings {
            let t = i as f64 / (rings - 1) as f64;
            let (p, q) = (
                c(t),
                c((t + 1e-4).min(1.0)) - (c(t) - c((t - 1e-4).max(0.0))),
            );
            let d = (q - p).normalize();
            // The curve lies in the y–z plane: x is always across it.
            let (a, b) = (V3::x(), d.cross(&V3::x()).normalize());
            for s in 0..SIDES {
                let ang = s as f64 * std::f64::consts::TAU / SIDES as f64;
                pts.push(p + (a * ang.cos() + b * ang.sin()) * r);
            }
        }
        let mut tris = Vec::new();
        for i in 0..rings - 1 {
            for s in 0..SIDES {
                let (a, b) = ((i * SIDES + s) as u32, (i * SIDES + (s + 1) % SIDES) as u32);
                let (c2, d2) = (a + SIDES as u32, b + SIDES as u32);
                tris.push([a, b, d2]);
                tris.push([a, d2, c2]);
            }
        }
        (pts, tris)
    }

    fn joint(name: &str, parent: Option<usize>, pos: P3, end: bool, r: f64) -> BJoint {
        BJoint {
            name: name.into(),
            parent,
            pos,
            end,
            key: parent.is_none() || end,
            r,
        }
    }

    #[test]
    fn a_curled_tube_the_outline_missed_gets_a_chain_that_follows_the_curl() {
        // A tail along −z (0.3 long) that then rises and curls forward over itself: a half circle
        // of radius 0.15 in the y–z plane. The skeleton from the outline covers only the straight
        // part (root → tail_0_0), as when the view is along y.
        let r = 0.02;
        let curve = |t: f64| {
            let s = t * (0.3 + std::f64::consts::PI * 0.15);
            if s <= 0.3 {
                P3::new(0.0, 0.0, -s)
            } else {
                let a = (s - 0.3) / 0.15;
                P3::new(0.0, 0.15 * (1.0 - a.cos()), -0.3 - 0.15 * a.sin())
            }
        };
        let (pts, tris) = tube(curve, r, 160);
        let mut built = Built {
            joints: vec![
                joint("root", None, P3::origin(), false, r),
                joint("tail_0_0", Some(0), P3::new(0.0, 0.0, -0.3), true, r),
            ],
            key_count: 2,
            branch_count: 1,
            ..Built::default()
        };
        assert_eq!(
            add_chains(&mut built, &pts, &tris, 0.9, CurveMode::Robust),
            1
        );
        let chain: Vec<&BJoint> = built.joints[2..].iter().collect();
        assert!(
            chain.len() >= 3,
            "{} joints: a half circle bends more than 18° twice",
            chain.len()
        );
        assert!(
            chain.iter().all(|j| j.name.starts_with("tail_0_")),
            "the tail goes on"
        );
        assert!(!built.joints[1].end, "the old tip is no end any more");
        for j in &chain {
            // Every joint on the arc's axis (the half circle centred at (0, 0.15, −0.3)).
            let off = ((j.pos - P3::new(0.0, 0.15, -0.3)).norm() - 0.15).abs();
            assert!(
                off < 0.5 * 0.15,
                "{} is {off:.3} off the curl's axis",
                j.name
            );
        }
        let end = chain.last().expect("chain").pos;
        assert!(
            end.y > 0.2 && end.z > -0.35,
            "the chain ends at the curl's end, not {end:?}"
        );
    }

    #[test]
    fn a_boned_tube_has_no_hidden_part() {
        let (pts, tris) = tube(|t| P3::new(0.0, 0.0, -0.4 * t), 0.02, 60);
        let mut built = Built {
            joints: vec![
                joint("root", None, P3::new(0.0, 0.0, -0.01), false, 0.02),
                joint("branch_0_0", Some(0), P3::new(0.0, 0.0, -0.39), true, 0.02),
            ],
            ..Built::default()
        };
        assert_eq!(
            add_chains(&mut built, &pts, &tris, 0.9, CurveMode::Robust),
            0
        );
        assert_eq!(built.joints.len(), 2);
    }
}
