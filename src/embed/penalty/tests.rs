//! Penalty terms by hand on tiny graphs, and the cached total against the sum of the terms.

use super::*;
use crate::discretize::{Sphere, SphereGraph};
use crate::embed::reduced::Reduced;
use crate::embed::{EmbedOptions, Orientation};
use crate::geom::{NodeId, P3};
use crate::skeleton::load::parse_template;
use std::path::Path;

fn graph(pts: &[(f64, f64)], edges: &[(usize, usize)]) -> SphereGraph {
    let mut g = SphereGraph::default();
    g.spheres = pts
        .iter()
        .map(|(x, y)| Sphere {
            center: P3::new(*x, *y, 0.5),
            radius: 0.05,
        })
        .collect();
    g.edges = vec![Vec::new(); pts.len()];
    for (a, b) in edges {
        let w = (g.spheres[*a].center - g.spheres[*b].center).norm();
        g.edges[*a].push((NodeId(*b as u32), w));
        g.edges[*b].push((NodeId(*a as u32), w));
    }
    g
}

fn ctx<'a>(red: &'a Reduced, paths: &'a Paths, g: &SphereGraph) -> Ctx<'a> {
    let all: Vec<u32> = (0..g.len() as u32).collect();
    Ctx::from_graph(
        red,
        paths,
        g,
        &Orientation::IDENTITY,
        EmbedOptions::default().weights,
        vec![all; red.len()],
    )
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-4, "{a} vs {b}");
}

#[test]
fn single_bone_terms_by_hand() {
    let text = "joints:\n  - { name: A, position: [0,0,0] }\n  - { name: B, parent: A, position: [0,1,0], foot: true }\n";
    let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
    let red = Reduced::new(&skel); // scale 0.56: chain length 0.56
    let g = graph(
        &[(0.5, 0.2), (0.5, 0.5), (0.5, 0.8), (0.8, 0.2)],
        &[(0, 1), (1, 2), (0, 3)],
    );
    let paths = Paths::new(&g);
    let c = ctx(&red, &paths, &g);
    let none = [0u64; 1];
    // B at the far end: length ratio 0.56 / (0.6 + 0.07) -> ramp 0.6716 -> cubed 0.3029.
    let t = c.terms(&[0], &none, 1, 2, false).unwrap();
    close(t[0], 0.027 * 0.302_92);
    close(t[1], 0.0); // straight up, as the template
    close(t[4], 0.014 * 0.6); // foot 0.6 above the lowest sphere
    close(t[6], 0.0);
    close(t[7], 0.0); // nothing beyond the end
                      // B halfway: shorter chain, and the end has a neighbour further along (mid-limb end).
    let t = c.terms(&[0], &none, 1, 1, false).unwrap();
    close(t[0], 0.027 * 2.0270_f64.powi(3));
    close(t[7], 0.005);
    // Sideways: global dot 0 -> 0.5 (16 - 0.1); local direction 50 |s|^2 = 15.68, weighted > 1: veto.
    assert!(c.terms(&[0], &none, 1, 3, false).is_none());
    assert_eq!(c.penalty(&[0], &none, 1, 3), VETO);
    let relaxed = c.terms(&[0], &none, 1, 3, true).unwrap();
    close(relaxed[1], 0.023 * 7.95);
    close(relaxed[6], 1.0);
}

#[test]
fn symmetry_and_shared_path_by_hand() {
    let text = "joints:\n  - { name: R, position: [0,0,0] }\n  - { name: L1, parent: R, position: [-1,1,0] }\n  - { name: L2, parent: R, position: [1,1,0], symmetric: L1 }\n";
    let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
    let red = Reduced::new(&skel);
    assert_eq!(red.joints[2].sym, Some(1));
    let g = graph(
        &[(0.5, 0.5), (0.3, 0.7), (0.7, 0.7), (0.8, 0.8)],
        &[(0, 1), (0, 2), (2, 3)],
    );
    let paths = Paths::new(&g);
    let c = ctx(&red, &paths, &g);
    let mut taken = [0u64; 1];
    taken[0] |= 0b11; // the path of L1: v1 -> v0
    let t = c.terms(&[0, 1], &taken, 2, 3, false).unwrap();
    // dist 0.4243 (+0.07), partner 0.2828 (+0.07): noc 1.5, ratio 1.2026.
    let (d, s) = (0.2_f64.hypot(0.2) + 0.1_f64.hypot(0.1), 0.2_f64.hypot(0.2));
    let ratio = (s / (d + 0.07)).max(d / (s + 0.07));
    close(t[2], 0.007 * ((0.2 * (d / s) + 0.8 * ratio).powi(3) - 1.2));
    close(t[3], 0.0);
    close(t[8], 0.0);
    // L2 on top of L1: its path starts on a taken vertex -> 0.5 / 1 + 0.5.
    let t = c.terms(&[0, 1], &taken, 2, 1, true).unwrap();
    close(t[3], 0.046 * 1.0);
}

#[test]
fn cached_penalty_equals_the_sum_of_terms() {
    let text = "joints:\n  - { name: R, position: [0,0,0] }\n  - { name: L1, parent: R, position: [-1,1,0] }\n  - { name: L2, parent: R, position: [1,1,0], symmetric: L1 }\n";
    let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
    let red = Reduced::new(&skel);
    let g = graph(
        &[(0.5, 0.5), (0.3, 0.7), (0.7, 0.7), (0.8, 0.8)],
        &[(0, 1), (0, 2), (2, 3)],
    );
    let paths = Paths::new(&g);
    let c = ctx(&red, &paths, &g);
    let taken = [0b11u64];
    for next in 0..4 {
        for _ in 0..2 {
            let sum = c
                .terms(&[0, 1], &taken, 2, next, false)
                .map_or(VETO, |t| t.iter().sum());
            close(c.penalty(&[0, 1], &taken, 2, next), sum);
        }
    }
}

#[test]
fn split_polyline_by_arc_length() {
    let p = [V3::zeros(), V3::new(1.0, 0.0, 0.0), V3::new(1.0, 1.0, 0.0)];
    let s = split_polyline(&p, &[0.0, 0.25, 0.75, 1.0]);
    assert!((s[1] - V3::new(0.5, 0.0, 0.0)).norm() < 1e-12);
    assert!((s[2] - V3::new(1.0, 0.5, 0.0)).norm() < 1e-12);
    assert!((s[3] - p[2]).norm() < 1e-12);
    assert_eq!(split_polyline(&[V3::zeros()], &[0.0, 0.5]).len(), 2);
}

#[test]
fn direction_term_on_the_stack_equals_the_heap_form_bit_for_bit() {
    // A three-joint chain (two bones per reduced joint) over a 60-vertex line with a branch
    // (paths longer than the stack buffer) and one vertex nothing reaches.
    let text = "joints:\n  - { name: A, position: [0,0,0] }\n  - { name: B, parent: A, position: [0,1,0] }\n  - { name: C, parent: B, position: [0.2,2,0] }\n";
    let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
    let red = Reduced::new(&skel);
    let mut pts: Vec<(f64, f64)> = (0..60)
        .map(|i| {
            (
                0.1 + 0.013 * f64::from(i),
                0.3 + 0.1 * (f64::from(i) * 0.7).sin(),
            )
        })
        .collect();
    pts.extend([(0.5, 0.9), (0.9, 0.9)]);
    let mut edges: Vec<(usize, usize)> = (0..59).map(|i| (i, i + 1)).collect();
    edges.push((30, 60));
    let g = graph(&pts, &edges);
    let paths = Paths::new(&g);
    let c = ctx(&red, &paths, &g);
    let idx = (0..red.len())
        .find(|&i| red.joints[i].bones.len() > 1)
        .expect("a two-bone chain");
    let (mut long, mut unreachable) = (0, 0);
    for pv in 0..g.len() as u32 {
        // (`next == pv` returns before either form.)
        for next in (0..g.len() as u32).filter(|&v| v != pv) {
            let (a, b) = (c.dot_term(idx, pv, next), c.dot_term_heap(idx, pv, next));
            assert_eq!(a.to_bits(), b.to_bits(), "{pv} -> {next}");
            long += usize::from(paths.path(next, pv).len() > super::chain::STACK_PATH);
            unreachable += usize::from(!paths.dist(next, pv).is_finite());
        }
    }
    assert!(
        long > 50 && unreachable > 50,
        "{long} long, {unreachable} unreachable"
    );
}

/// The search's scan for a joint's cheapest candidate, written plainly: every candidate scored by
/// [`Ctx::penalty`] in order until one costs nothing. `(minimum, candidates reached)`.
fn plain_scan(c: &Ctx, m: &[u32], taken: &[u64], j: usize) -> (f64, u64) {
    let (mut best, mut work) = (f64::INFINITY, 0);
    for &w in &c.cand[j] {
        work += 1;
        best = best.min(c.penalty(m, taken, j, w));
        if best <= 0.0 {
            break;
        }
    }
    (best, work)
}

#[test]
fn cached_bounded_scan_equals_the_plain_scan_bit_for_bit() {
    // The human template on a jittered 7 × 9 × 4 lattice of spheres of varied radii (some too
    // thin to share), lattice neighbours joined; partial matches drawn from a small pool of
    // vertices so that the cached rows are met again with other matches and other taken sets.
    let skel = crate::skeleton::load_template("human").unwrap();
    let red = Reduced::new(&skel);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut rnd = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as u32
    };
    let (nx, ny, nz) = (7usize, 9usize, 4usize);
    let at = |x: usize, y: usize, z: usize| x + nx * (y + ny * z);
    let mut g = SphereGraph::default();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let j = |r: u32| f64::from(r % 1000) / 1000.0 * 0.03;
                let c = P3::new(
                    0.2 + 0.1 * x as f64 + j(rnd()),
                    0.05 + 0.1 * y as f64 + j(rnd()),
                    0.35 + 0.1 * z as f64 + j(rnd()),
                );
                let radius = 0.015 + f64::from(rnd() % 100) / 100.0 * 0.05;
                g.spheres.push(Sphere { center: c, radius });
            }
        }
    }
    g.edges = vec![Vec::new(); g.spheres.len()];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                for (dx, dy, dz) in [(1, 0, 0), (0, 1, 0), (0, 0, 1)] {
                    let (x2, y2, z2) = (x + dx, y + dy, z + dz);
                    if x2 < nx && y2 < ny && z2 < nz {
                        let (a, b) = (at(x, y, z), at(x2, y2, z2));
                        let w = (g.spheres[a].center - g.spheres[b].center).norm();
                        g.edges[a].push((NodeId(b as u32), w));
                        g.edges[b].push((NodeId(a as u32), w));
                    }
                }
            }
        }
    }
    let n = g.len() as u32;
    let paths = Paths::new(&g);
    let c = ctx(&red, &paths, &g);
    let pool: Vec<u32> = (0..12).map(|_| rnd() % n).collect();
    let (mut free, mut vetoed, mut priced, mut scans) = (0, 0, 0, 0);
    for _ in 0..400 {
        let depth = 1 + rnd() as usize % (red.len() - 1);
        let m: Vec<u32> = (0..depth)
            .map(|_| pool[rnd() as usize % pool.len()])
            .collect();
        let mut taken = vec![0u64; (n as usize).div_ceil(64)];
        for _ in 0..rnd() % 60 {
            let v = rnd() % n;
            taken[v as usize / 64] |= 1 << (v % 64);
        }
        for j in 0..red.len() {
            let mut work = 0;
            let got = c.cheapest(&m, &taken, j, &mut work);
            let (want, want_work) = plain_scan(&c, &m, &taken, j);
            assert_eq!(got.to_bits(), want.to_bits(), "joint {j} after {m:?}");
            assert_eq!(work, want_work, "joint {j} after {m:?}");
            scans += 1;
            match want {
                w if w <= 0.0 => free += 1,
                w if w >= VETO => vetoed += 1,
                _ => priced += 1,
            }
        }
    }
    // Every kind of outcome was met: a free candidate, all vetoed, a priced minimum.
    assert!(
        free > 50 && vetoed > 50 && priced > 50,
        "{free} / {vetoed} / {priced} of {scans}"
    );
}
