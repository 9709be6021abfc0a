//! Candidate graph vertices per reduced joint (Baran & Popović 2007 §3.2; docs/algorithms.md#candidates), plus hints.
//!
//! Checked in this order: a **hinted** joint may only use vertices whose sphere touches the hint's
//! ball (none → the nearest vertex, with a warning; hints inside chains are [`super::pins`]); **fat** joints use "fatVerts" (radius ≥ the 50th-largest
//! radius, ties included); other **leaves** use "limbVerts" (dead ends: approached from some neighbour,
//! every continuation through a not-much-thinner neighbour turns by more than ~37°); all other joints may
//! use any vertex. An empty fat/limb set falls back to all vertices with a warning instead of failing.

use super::reduced::Reduced;
use crate::discretize::SphereGraph;
use crate::embed::hints::ResolvedHint;
use crate::skeleton::Skeleton;

/// How many of the largest spheres fat joints may use (ties included).
pub const FAT_COUNT: usize = 50;

/// Vertices with radius ≥ the [`FAT_COUNT`]-th largest radius (all if fewer).
pub fn fat_verts(g: &SphereGraph) -> Vec<u32> {
    let mut radii: Vec<f64> = g.spheres.iter().map(|s| s.radius).collect();
    radii.sort_by(|a, b| b.total_cmp(a));
    let Some(&cut) = radii.get(FAT_COUNT - 1) else {
        return (0..g.len() as u32).collect();
    };
    (0..g.len() as u32)
        .filter(|i| g.spheres[*i as usize].radius >= cut)
        .collect()
}

/// Dead-end vertices (`limbVerts`, docs/algorithms.md#candidates).
pub fn limb_verts(g: &SphereGraph) -> Vec<u32> {
    let n = g.len();
    let dir = |a: usize, b: usize| (g.spheres[b].center - g.spheres[a].center).normalize();
    (0..n)
        .filter(|&i| {
            let nb = g.edges.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let ok = |e: usize| e < n && e != i;
            nb.iter().any(|(e1, _)| {
                let e1 = e1.idx();
                if !ok(e1) {
                    return false;
                }
                let come = dir(e1, i);
                !nb.iter().any(|(e2, _)| {
                    let e2 = e2.idx();
                    ok(e2)
                        && e2 != e1
                        && g.spheres[i].radius <= 2.0 * g.spheres[e2].radius
                        && come.dot(&dir(i, e2)) > 0.8
                })
            })
        })
        .map(|i| i as u32)
        .collect()
}

/// Candidate sets per reduced joint (search order) and warnings.
pub fn candidates(
    g: &SphereGraph,
    skel: &Skeleton,
    red: &Reduced,
    hints: &[ResolvedHint],
) -> (Vec<Vec<u32>>, Vec<String>) {
    let (fat, limb) = (fat_verts(g), limb_verts(g));
    let all: Vec<u32> = (0..g.len() as u32).collect();
    let mut warnings = Vec::new();
    let mut out = Vec::with_capacity(red.len());
    for rj in &red.joints {
        let name = &skel.joints[rj.full.0].name;
        if let Some(h) = hints.iter().find(|h| h.joint == rj.full) {
            let near: Vec<u32> = all
                .iter()
                .copied()
                .filter(|v| {
                    // The sphere touches the hint's ball: the user pins near the surface, while
                    // the search places joints at sphere centres on the limb's axis.
                    let s = &g.spheres[*v as usize];
                    (s.center - h.position).norm() <= h.radius + s.radius
                })
                .collect();
            if near.is_empty() {
                let nearest = all.iter().copied().min_by(|a, b| {
                    let d = |v: u32| (g.spheres[v as usize].center - h.position).norm();
                    d(*a).total_cmp(&d(*b))
                });
                warnings.push(format!(
                    "hint for {name}: no interior sphere within its radius; using the nearest one"
                ));
                out.push(nearest.into_iter().collect());
            } else {
                out.push(near);
            }
            continue;
        }
        let (set, kind) = if rj.fat {
            (&fat, "thick")
        } else if rj.leaf {
            (&limb, "limb-end")
        } else {
            (&all, "")
        };
        if set.is_empty() && !all.is_empty() {
            warnings.push(format!(
                "no {kind} spheres for {name}; it may be placed anywhere inside"
            ));
            out.push(all.clone());
        } else {
            out.push(set.clone());
        }
    }
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discretize::Sphere;
    use crate::geom::{NodeId, P3};

    /// A "T": a line 0..4 along x, and a branch 5,6 going up from vertex 2.
    fn tee() -> SphereGraph {
        let pts = [
            (0.0, 0.0, 0.05),
            (0.1, 0.0, 0.06),
            (0.2, 0.0, 0.08),
            (0.3, 0.0, 0.06),
            (0.4, 0.0, 0.05),
            (0.2, 0.1, 0.05),
            (0.2, 0.2, 0.04),
        ];
        let mut g = SphereGraph::default();
        g.spheres = pts
            .iter()
            .map(|(x, y, r)| Sphere {
                center: P3::new(*x, *y, 0.5),
                radius: *r,
            })
            .collect();
        let pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5), (5, 6)];
        g.edges = vec![Vec::new(); pts.len()];
        for (a, b) in pairs {
            let w = (g.spheres[a].center - g.spheres[b].center).norm();
            g.edges[a].push((NodeId(b as u32), w));
            g.edges[b].push((NodeId(a as u32), w));
        }
        g
    }

    #[test]
    fn limb_verts_are_the_dead_ends() {
        let mut l = limb_verts(&tee());
        l.sort();
        // The junction counts too: approached from the branch, both continuations turn by 90°.
        assert_eq!(l, vec![0, 2, 4, 6]);
    }

    #[test]
    fn fat_verts_take_all_when_few() {
        assert_eq!(fat_verts(&tee()).len(), 7);
    }
}
