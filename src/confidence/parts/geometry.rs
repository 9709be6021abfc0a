//! The geometry the check in [`super`] measures with: bones as segments and their distance to a
//! point, which spheres the bones reach (step 1 of the module docs), graph distance to the reached
//! volume, and the connected groups of unreached spheres (step 2).

use super::REACH;
use crate::discretize::SphereGraph;
use crate::embed::reduced::Reduced;
use crate::geom::{NodeId, P3};
use crate::skeleton::Skeleton;

/// Distance from `p` to the segment `a`–`b`.
pub(super) fn seg_dist(p: &P3, a: &P3, b: &P3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-300)).clamp(0.0, 1.0);
    (p - (a + ab * t)).norm()
}

/// Bones as segments `(parent, child)` of the embedded joints.
pub(super) fn bones(skel: &Skeleton) -> Vec<(usize, usize)> {
    skel.joints
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.parent.map(|p| (p.0, i)))
        .collect()
}

/// Graph distance of every sphere to the nearest reached one (0 for reached spheres).
pub(super) fn distance_to_reached(graph: &SphereGraph, reached: &[bool]) -> Vec<f64> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut dist: Vec<f64> = reached
        .iter()
        .map(|r| if *r { 0.0 } else { f64::INFINITY })
        .collect();
    // Keys are non-negative finite floats, so their bit patterns order like the values.
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = (0..dist.len())
        .filter(|i| reached[*i])
        .map(|i| Reverse((0f64.to_bits(), i)))
        .collect();
    while let Some(Reverse((d, i))) = heap.pop() {
        let d = f64::from_bits(d);
        if d > dist[i] {
            continue;
        }
        for (n, w) in &graph.edges[i] {
            let nd = d + w;
            if nd < dist[n.0 as usize] {
                dist[n.0 as usize] = nd;
                heap.push(Reverse((nd.to_bits(), n.0 as usize)));
            }
        }
    }
    dist
}

/// Connected groups of unreached spheres (graph edges), each sorted.
pub(super) fn unreached_groups(graph: &SphereGraph, reached: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = reached.to_vec();
    let mut groups = Vec::new();
    for s in 0..graph.len() {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let (mut group, mut stack) = (Vec::new(), vec![s]);
        while let Some(i) = stack.pop() {
            group.push(i);
            for (n, _) in &graph.edges[i] {
                if !seen[n.0 as usize] {
                    seen[n.0 as usize] = true;
                    stack.push(n.0 as usize);
                }
            }
        }
        group.sort_unstable();
        groups.push(group);
    }
    groups
}
/// Which spheres the skeleton reaches (module docs, step 1).
pub(super) fn reached_spheres(
    graph: &SphereGraph,
    skel: &Skeleton,
    q: &[P3],
    segs: &[(usize, usize)],
    discrete: &[NodeId],
) -> Vec<bool> {
    let bone_dist = |p: &P3| {
        segs.iter()
            .map(|(a, b)| seg_dist(p, &q[*a], &q[*b]))
            .fold(f64::INFINITY, f64::min)
    };
    let mut reached: Vec<bool> = graph
        .spheres
        .iter()
        .map(|s| bone_dist(&s.center) <= REACH * s.radius)
        .collect();
    // The graph paths the discrete embedding chose are reached too: refined bones are straight and
    // cut the corners of a curved neck or tail whose spheres their chain did follow.
    let red = Reduced::new(skel);
    if discrete.len() == red.len() {
        for (k, r) in red.joints.iter().enumerate() {
            if let Some(p) = r.parent {
                for n in graph.path(discrete[p], discrete[k]) {
                    reached[n.0 as usize] = true;
                }
            }
        }
    }
    reached
}
