//! Contact detection and the contact graph (Bharaj et al. 2012 §4): oriented-box broad phase over a
//! sweep along x (so pairs far apart along x are never even box-tested), then the sample-distance
//! narrow phase (any two samples closer than ε) on a per-component hash grid of cell ε. A disconnected
//! graph is joined by its nearest piece pairs (the paper has no rule for it; every added edge is
//! reported).

use std::collections::HashMap;

use super::samples::Component;
use crate::geom::{P3, V3};

/// One edge of the contact graph.
#[derive(Clone, Debug)]
pub struct Contact {
    /// Lower component index.
    pub a: usize,
    /// Higher component index.
    pub b: usize,
    /// Centroid of the samples of either piece within ε of the other (the contact region; the joint
    /// pivot of §9), or the midpoint of the closest pair for a forced link.
    pub centroid: P3,
    /// Added to connect the graph, not a real contact.
    pub forced: bool,
}

/// The contact graph with its detection counters.
#[derive(Clone, Debug, Default)]
pub struct ContactGraph {
    /// Edges, sorted by `(a, b)`.
    pub contacts: Vec<Contact>,
    /// Oriented-box tests run (pairs overlapping along x).
    pub box_tests: usize,
    /// Pairs that reached the sample-distance test.
    pub narrow_pairs: usize,
    /// Components that were not connected to the largest piece's group by real contacts.
    pub floating: Vec<usize>,
}

type Cell = [i64; 3];

fn cell_of(p: &P3, size: f64) -> Cell {
    [p.x, p.y, p.z].map(|c| (c / size).floor() as i64)
}

fn grid(samples: &[P3], size: f64) -> HashMap<Cell, Vec<u32>> {
    let mut g: HashMap<Cell, Vec<u32>> = HashMap::new();
    for (i, p) in samples.iter().enumerate() {
        g.entry(cell_of(p, size)).or_default().push(i as u32);
    }
    g
}

/// Samples of `query` within `eps` of some sample of `target` (indexed by `grid`), summed.
fn near_samples(
    query: &[P3],
    target: &[P3],
    g: &HashMap<Cell, Vec<u32>>,
    eps: f64,
    within: &(P3, P3),
) -> (V3, usize) {
    let (mut sum, mut n) = (V3::zeros(), 0);
    let inside = |p: &P3| (0..3).all(|k| p[k] >= within.0[k] - eps && p[k] <= within.1[k] + eps);
    for p in query.iter().filter(|p| inside(p)) {
        let c = cell_of(p, eps);
        let hit = (-1..=1).any(|dx| {
            (-1..=1).any(|dy| {
                (-1..=1).any(|dz| {
                    g.get(&[c[0] + dx, c[1] + dy, c[2] + dz])
                        .is_some_and(|v| v.iter().any(|&i| (target[i as usize] - p).norm() < eps))
                })
            })
        });
        if hit {
            sum += p.coords;
            n += 1;
        }
    }
    (sum, n)
}

/// Detect contacts between `parts` at distance `eps` (normalized units) and connect the graph.
pub fn detect(parts: &[Component], eps: f64) -> ContactGraph {
    let grids: Vec<_> = parts.iter().map(|c| grid(&c.samples, eps)).collect();
    let boxes: Vec<(P3, P3)> = parts.iter().map(|c| c.obb.aabb(0.5 * eps)).collect();
    // Samples' own axis-aligned boxes: a query sample outside the other's box (grown by ε) is skipped.
    let tight: Vec<(P3, P3)> = parts
        .iter()
        .map(|c| {
            let b = crate::geom::Aabb::of_points(&c.samples);
            (b.min, b.max)
        })
        .collect();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j)));
    let mut out = ContactGraph::default();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0.x > boxes[i].1.x {
                break; // sorted by min x: nothing further overlaps i along x
            }
            let overlap =
                (1..3).all(|d| boxes[i].0[d] <= boxes[j].1[d] && boxes[j].0[d] <= boxes[i].1[d]);
            if !overlap {
                continue;
            }
            out.box_tests += 1;
            if !parts[i].obb.intersects(&parts[j].obb, 0.5 * eps) {
                continue;
            }
            out.narrow_pairs += 1;
            let (a, b) = (i.min(j), i.max(j));
            let (sa, na) = near_samples(
                &parts[a].samples,
                &parts[b].samples,
                &grids[b],
                eps,
                &tight[b],
            );
            if na == 0 {
                continue;
            }
            let (sb, nb) = near_samples(
                &parts[b].samples,
                &parts[a].samples,
                &grids[a],
                eps,
                &tight[a],
            );
            out.contacts.push(Contact {
                a,
                b,
                centroid: P3::from((sa + sb) / (na + nb) as f64),
                forced: false,
            });
        }
    }
    connect(parts, &mut out);
    out.contacts.sort_by_key(|c| (c.a, c.b));
    out
}

/// Union-find root with path halving.
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Groups of components connected by `contacts`: a group id per component (the smallest member).
fn groups(n: usize, contacts: &[Contact]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n).collect();
    for c in contacts {
        let (ra, rb) = (find(&mut parent, c.a), find(&mut parent, c.b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    (0..n).map(|i| find(&mut parent, i)).collect()
}

/// How many candidate pieces (nearest by box distance) a floating group's pieces test exactly.
const LINK_CANDIDATES: usize = 6;
/// Samples per side used when measuring the distance between two pieces for a forced link.
const LINK_SAMPLES: usize = 256;

/// Join the graph's groups (Borůvka rounds: every group links to its nearest outside piece).
fn connect(parts: &[Component], graph: &mut ContactGraph) {
    let n = parts.len();
    let g0 = groups(n, &graph.contacts);
    let main = (0..n)
        .max_by(|&i, &j| parts[i].area.total_cmp(&parts[j].area).then(j.cmp(&i)))
        .map(|i| g0[i]);
    graph.floating = (0..n).filter(|&i| Some(g0[i]) != main).collect();
    loop {
        let g = groups(n, &graph.contacts);
        let mut ids: Vec<usize> = g.clone();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() <= 1 {
            return;
        }
        let mut added = Vec::new();
        for &gid in &ids {
            if let Some(link) = nearest_link(parts, &g, gid) {
                added.push(link);
            }
        }
        added.sort_by_key(|c| (c.a, c.b));
        added.dedup_by_key(|c| (c.a, c.b));
        graph.contacts.extend(added);
    }
}

fn box_distance(a: &(P3, P3), b: &(P3, P3)) -> f64 {
    let d = V3::from_fn(|k, _| (a.0[k] - b.1[k]).max(b.0[k] - a.1[k]).max(0.0));
    d.norm()
}

/// The closest pair of pieces, one in group `gid` and one outside it (approximate: each member
/// tests its [`LINK_CANDIDATES`] nearest outside pieces by box distance on subsampled clouds).
fn nearest_link(parts: &[Component], g: &[usize], gid: usize) -> Option<Contact> {
    let boxes: Vec<(P3, P3)> = parts.iter().map(|c| c.obb.aabb(0.0)).collect();
    let mut best: Option<(f64, Contact)> = None;
    for i in (0..parts.len()).filter(|&i| g[i] == gid) {
        let mut cands: Vec<(f64, usize)> = (0..parts.len())
            .filter(|&j| g[j] != gid)
            .map(|j| (box_distance(&boxes[i], &boxes[j]), j))
            .collect();
        cands.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for &(_, j) in cands.iter().take(LINK_CANDIDATES) {
            let (d, p, q) = closest_pair(&parts[i].samples, &parts[j].samples);
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((
                    d,
                    Contact {
                        a: i.min(j),
                        b: i.max(j),
                        centroid: P3::from((p.coords + q.coords) * 0.5),
                        forced: true,
                    },
                ));
            }
        }
    }
    best.map(|b| b.1)
}

fn closest_pair(a: &[P3], b: &[P3]) -> (f64, P3, P3) {
    let step = |v: &[P3]| v.len().div_ceil(LINK_SAMPLES).max(1);
    let (sa, sb) = (step(a), step(b));
    let mut best = (f64::INFINITY, a[0], b[0]);
    for p in a.iter().step_by(sa) {
        for q in b.iter().step_by(sb) {
            let d = (p - q).norm();
            if d < best.0 {
                best = (d, *p, *q);
            }
        }
    }
    best
}
