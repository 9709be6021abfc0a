//! Tests of the BVH: closest points against brute force (bit for bit), and the wide traversal
//! held to the binary reference traversal (same distance bit for bit; among exactly tied
//! triangles it may pick another one).

use super::*;

use crate::util::test_rng::lcg;

/// `n` small random triangles scattered over the unit cube (a triangle soup).
fn soup(rnd: &mut impl FnMut() -> f64, n: u32) -> (Vec<P3>, Vec<[u32; 3]>) {
    let mut pos = Vec::new();
    let mut tris = Vec::new();
    for i in 0..n {
        let c = V3::new(rnd(), rnd(), rnd());
        for _ in 0..3 {
            pos.push(P3::from(c + V3::new(rnd(), rnd(), rnd()) * 0.1));
        }
        tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    (pos, tris)
}

fn brute(p: &V3, bvh: &Bvh) -> f64 {
    bvh.tris
        .iter()
        .map(|t| (closest_on_triangle(p, t).0 - p).norm_squared())
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn closest_matches_brute_force() {
    // A deterministic cloud of triangles.
    let mut rnd = lcg(12345);
    let (pos, tris) = soup(&mut rnd, 300);
    let bvh = Bvh::build(&pos, &tris);
    for _ in 0..500 {
        let p = V3::new(rnd(), rnd(), rnd()) * 1.4 - V3::repeat(0.2);
        let hit = bvh.closest(&p, Some(7)).map(|h| h.dist2);
        let want = brute(&p, &bvh);
        assert!(
            hit.is_some_and(|d| (d - want).abs() < 1e-12),
            "{hit:?} vs {want}"
        );
    }
}

/// [`Bvh::closest`] as it was written before the caller-held stack: the definition the
/// fast traversal is held to, bit for bit.
fn closest_reference(bvh: &Bvh, p: &V3, hint: Option<u32>) -> Option<Hit> {
    let mut best: Option<Hit> = None;
    let mut best2 = f64::INFINITY;
    if let Some(t) = hint.and_then(|s| bvh.tris.get(s as usize)) {
        let (q, f) = closest_on_triangle(p, t);
        best2 = (q - p).norm_squared();
        best = hint.map(|slot| Hit {
            dist2: best2,
            point: q,
            slot,
            feature: f,
        });
    }
    let mut stack = [(0u32, 0.0f64); STACK];
    let mut top = 0usize;
    let mut node = 0usize;
    while let Some(&n) = bvh.nodes.get(node) {
        if n.count > 0 {
            scan_leaf_reference(bvh, p, n.first, n.count, &mut best, &mut best2);
        } else {
            let l = n.first as usize;
            let (dl, dr) = match (bvh.nodes.get(l), bvh.nodes.get(l + 1)) {
                (Some(a), Some(b)) => (box_dist2(p, a), box_dist2(p, b)),
                _ => (f64::INFINITY, f64::INFINITY),
            };
            let (near, far, dn, df) = if dl <= dr {
                (l, l + 1, dl, dr)
            } else {
                (l + 1, l, dr, dl)
            };
            if df < best2 && top < STACK {
                stack[top] = (far as u32, df);
                top += 1;
            }
            if dn < best2 {
                node = near;
                continue;
            }
        }
        // Pop the next pending node that can still beat the best distance (its box distance
        // was computed when it was pushed; no need to read the node again).
        let mut next = None;
        while top > 0 {
            top -= 1;
            let (cand, d2) = stack[top];
            if d2 < best2 {
                next = Some(cand as usize);
                break;
            }
        }
        match next {
            Some(c) => node = c,
            None => break,
        }
    }
    best
}

/// The leaf part of [`closest_reference`]: the triangles `first..first + count`, each skipped
/// when its plane is already farther than the best distance.
fn scan_leaf_reference(
    bvh: &Bvh,
    p: &V3,
    first: u32,
    count: u32,
    best: &mut Option<Hit>,
    best2: &mut f64,
) {
    let first = first as usize;
    let end = (first + count as usize).min(bvh.tris.len());
    for slot in first..end {
        let pl = &bvh.planes[slot];
        let h = pl.n.dot(p) - pl.off;
        if h * h >= *best2 {
            continue;
        }
        let (q, f) = closest_on_triangle(p, &bvh.tris[slot]);
        let d2 = (q - p).norm_squared();
        if d2 < *best2 {
            *best2 = d2;
            *best = Some(Hit {
                dist2: d2,
                point: q,
                slot: slot as u32,
                feature: f,
            });
        }
    }
}

/// Bit-for-bit equality of two answers: distance, point, slot and feature.
fn same_hit(a: Option<Hit>, b: Option<Hit>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.dist2.to_bits() == b.dist2.to_bits()
                && a.point.map(f64::to_bits) == b.point.map(f64::to_bits)
                && a.slot == b.slot
                && a.feature == b.feature
        }
        _ => false,
    }
}

/// A regular grid surface (z = 0) of `n`×`n` quads, each split in two: every interior vertex
/// is shared by six triangles and every interior edge by two, so queries above vertices
/// and edges tie exactly.
fn grid(n: u32) -> (Vec<P3>, Vec<[u32; 3]>) {
    let at = |i: u32, j: u32| i + j * (n + 1);
    let pos = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| P3::new(f64::from(i), f64::from(j), 0.0) / f64::from(n)))
        .collect();
    let tris = (0..n)
        .flat_map(|j| {
            (0..n).flat_map(move |i| {
                [
                    [at(i, j), at(i + 1, j), at(i + 1, j + 1)],
                    [at(i, j), at(i + 1, j + 1), at(i, j + 1)],
                ]
            })
        })
        .collect();
    (pos, tris)
}

/// The wide traversal's answer against the binary reference's: the same distance bit for bit,
/// and a hit consistent with its own triangle (point, feature and distance as
/// [`closest_on_triangle`] gives them). True when the two picked different (hence exactly
/// tied) triangles.
fn agrees_with_reference(bvh: &Bvh, p: &V3, fast: Option<Hit>, want: Option<Hit>) -> bool {
    match (fast, want) {
        (None, None) => false,
        (Some(a), Some(b)) => {
            assert_eq!(
                a.dist2.to_bits(),
                b.dist2.to_bits(),
                "same distance at {p:?}"
            );
            let (q, f) = closest_on_triangle(p, &bvh.tris[a.slot as usize]);
            assert!(q.map(f64::to_bits) == a.point.map(f64::to_bits) && f == a.feature);
            assert_eq!((q - p).norm_squared().to_bits(), a.dist2.to_bits());
            if a.slot == b.slot {
                assert!(same_hit(Some(a), Some(b)), "same triangle, same hit");
            }
            a.slot != b.slot
        }
        _ => panic!("one traversal found a triangle, the other none"),
    }
}

#[test]
fn wide_traversal_finds_the_reference_distance_bit_for_bit() {
    let mut rnd = lcg(777);
    // Random soup: random queries, random and chained hints.
    let (pos, tris) = soup(&mut rnd, 500);
    let soup = Bvh::build(&pos, &tris);
    let mut hint = None;
    for k in 0..2000 {
        let p = V3::new(rnd(), rnd(), rnd()) * 1.4 - V3::repeat(0.2);
        let h = if k % 3 == 0 {
            Some((k * 7 % 500) as u32)
        } else {
            hint
        };
        let fast = soup.closest(&p, h);
        agrees_with_reference(&soup, &p, fast, closest_reference(&soup, &p, h));
        hint = fast.map(|x| x.slot);
    }
    // Ties: lattice points over a grid surface (above vertices, edges, faces), with and
    // without hints; and a single-leaf tree.
    let (pos, tris) = grid(8);
    let g = Bvh::build(&pos, &tris);
    let mut hint = None;
    let (mut ties, mut other) = (0, 0);
    for i in 0..=32 {
        for j in 0..=32 {
            for z in [0.0, 0.01, -0.125, 0.5] {
                let p = V3::new(f64::from(i) / 32.0 - 0.25, f64::from(j) / 32.0, z);
                for h in [None, hint, Some(((i * 33 + j) % 128) as u32)] {
                    let fast = g.closest(&p, h);
                    other += usize::from(agrees_with_reference(
                        &g,
                        &p,
                        fast,
                        closest_reference(&g, &p, h),
                    ));
                }
                let fast = g.closest(&p, hint);
                let d = fast.map_or(f64::NAN, |x| x.dist2);
                let tied = g
                    .tris
                    .iter()
                    .filter(|t| (closest_on_triangle(&p, t).0 - p).norm_squared() == d)
                    .count();
                ties += usize::from(tied > 1);
                hint = fast.map(|x| x.slot);
            }
        }
    }
    assert!(ties > 1000, "the grid queries tie exactly ({ties})");
    assert!(
        other < ties * 3,
        "{other} of the tied answers changed triangle"
    );
    let one = Bvh::build(&pos, &tris[..3]);
    for k in 0..50 {
        let p = V3::new(rnd(), rnd(), rnd());
        let h = (k % 2 == 0).then_some(1);
        let fast = one.closest(&p, h);
        let want = closest_reference(&one, &p, h);
        assert!(!agrees_with_reference(&one, &p, fast, want) && same_hit(fast, want));
    }
}

/// A closed, bumpy sphere of `n` × `2n` quads (each split in two), radius varying by `bump`.
fn bumpy_sphere(rnd: &mut impl FnMut() -> f64, n: u32, bump: f64) -> (Vec<P3>, Vec<[u32; 3]>) {
    use std::f64::consts::PI;
    let m = 2 * n;
    let mut pos = vec![P3::new(0.0, 0.0, 1.0 + bump * rnd())];
    for i in 1..n {
        for j in 0..m {
            let (t, f) = (
                PI * f64::from(i) / f64::from(n),
                2.0 * PI * f64::from(j) / f64::from(m),
            );
            let r = 1.0 + bump * rnd();
            pos.push(P3::new(
                r * t.sin() * f.cos(),
                r * t.sin() * f.sin(),
                r * t.cos(),
            ));
        }
    }
    pos.push(P3::new(0.0, 0.0, -1.0 - bump * rnd()));
    let south = (pos.len() - 1) as u32;
    let at = |i: u32, j: u32| 1 + (i - 1) * m + j % m;
    let mut tris = Vec::new();
    for j in 0..m {
        tris.push([0, at(1, j), at(1, j + 1)]);
        tris.push([south, at(n - 1, j + 1), at(n - 1, j)]);
        for i in 1..n - 1 {
            tris.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            tris.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (pos, tris)
}

#[test]
fn closest_equals_brute_force_exactly_on_random_meshes() {
    let mut rnd = lcg(4242);
    for round in 0..6 {
        let (pos, tris) = if round % 2 == 0 {
            soup(&mut rnd, 50 + 300 * round)
        } else {
            bumpy_sphere(&mut rnd, 6 + 4 * round, 0.05 * f64::from(round))
        };
        let bvh = Bvh::build(&pos, &tris);
        let mut scratch = Scratch::default();
        let mut hint = None;
        for k in 0..1500 {
            // Lattice-like points (exact ties with grid-aligned vertices are not the point
            // here; the grid test covers them) and random ones, near and far.
            let p = if k % 2 == 0 {
                V3::new(rnd(), rnd(), rnd()) * 3.0 - V3::repeat(1.5)
            } else {
                V3::new(rnd(), rnd(), rnd()) * 0.2 + V3::new(0.9, 0.0, 0.0)
            };
            let want = brute(&p, &bvh);
            let hit = bvh.closest_with(&p, hint, &mut scratch).expect("a hit");
            assert_eq!(
                hit.dist2.to_bits(),
                want.to_bits(),
                "round {round} query {k}"
            );
            let q = closest_on_triangle(&p, &bvh.tris[hit.slot as usize]).0;
            assert_eq!((q - p).norm_squared().to_bits(), want.to_bits());
            // A bound at the answer finds nothing strictly nearer; above it, the answer. (Not
            // just above: the leaf's f64 plane test, as before the wide tree, may reject the
            // winner against a bound a few ulps of its plane offset above its distance.)
            assert!(bvh.closest_below(&p, None, want, &mut scratch).is_none());
            let above = bvh.closest_below(&p, None, want * 2.0 + 1e-30, &mut scratch);
            assert_eq!(above.map(|h| h.dist2.to_bits()), Some(want.to_bits()));
            hint = (k % 5 != 0).then_some(hit.slot);
        }
    }
}

#[test]
fn parallel_build_equals_the_serial_one() {
    let mut rnd = lcg(99);
    let mut pos = Vec::new();
    let mut tris = Vec::new();
    for i in 0..3 * PAR_BUILD as u32 {
        let c = V3::new(rnd(), rnd(), rnd() * 0.2);
        for _ in 0..3 {
            pos.push(P3::from(c + V3::new(rnd(), rnd(), rnd()) * 0.02));
        }
        tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    let key = |b: &Bvh| node_bits(&b.nodes);
    let parallel = Bvh::build_par(&pos, &tris, 64);
    let serial = Bvh::build_par(&pos, &tris, usize::MAX);
    assert!(parallel.nodes.len() > 2 * PAR_BUILD / LEAF_SIZE);
    assert!(key(&parallel) == key(&serial), "same nodes");
    assert_eq!(parallel.tri_ids, serial.tri_ids);
}

#[test]
fn empty_tree_answers_none() {
    let bvh = Bvh::build(&[], &[]);
    assert!(bvh.closest(&V3::zeros(), None).is_none());
    let bad = Bvh::build(&[P3::origin()], &[[0, 1, 2]]);
    assert!(bad.is_empty());
}

#[test]
fn tied_triangles_give_the_same_pseudo_normal_sign() {
    use super::super::winding::Sign;
    let mut rnd = lcg(99);
    let (pos, tris) = bumpy_sphere(&mut rnd, 12, 0.1);
    let bvh = Bvh::build(&pos, &tris);
    let sign = Sign::new(&bvh, &pos, &tris);
    assert_eq!(sign.method(), "pseudo-normal", "a closed outward shell");
    // Lattice points (as the field queries them) near and inside the surface, hinted with the
    // previous answer: many tie exactly at shared vertices and edges.
    let (mut other, mut hint) = (0, None);
    for i in 0..=40 {
        for j in 0..=40 {
            for k in 0..=40 {
                let p = V3::new(f64::from(i), f64::from(j), f64::from(k)) / 16.0 - V3::repeat(1.25);
                let fast = bvh.closest(&p, hint);
                let want = closest_reference(&bvh, &p, hint);
                if agrees_with_reference(&bvh, &p, fast, want) {
                    other += 1;
                    let (a, b) = (fast.expect("hit"), want.expect("hit"));
                    assert_eq!(sign.inside(&p, &a), sign.inside(&p, &b), "tie at {p:?}");
                }
                hint = fast.map(|h| h.slot);
            }
        }
    }
    assert!(
        other > 20,
        "the lattice meets ties the two traversals break apart ({other})"
    );
}
