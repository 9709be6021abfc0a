//! The exact triangle–triangle test against a brute separating-axis reference in integer
//! arithmetic (random small-integer corners: many touching, coplanar and collinear pairs), the
//! adjacent-pair rules, and whole shells with and without self-intersections.

use super::*;
use crate::geom::P3;

/// Deterministic xorshift generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Integer in `-r..=r`.
    fn int(&mut self, r: i64) -> i64 {
        (self.next() % (2 * r as u64 + 1)) as i64 - r
    }
}

type I3 = [i64; 3];

fn sub(a: I3, b: I3) -> I3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: I3, b: I3) -> I3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: I3, b: I3) -> i64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Brute reference: two closed triangles are disjoint iff some axis strictly separates their
/// projections; for two (flat) convex polytopes the candidates are both normals, every edge ×
/// edge, and each normal × its own edges (coplanar pairs). Exact in integers.
fn reference(a: [I3; 3], b: [I3; 3]) -> bool {
    let ea = [0, 1, 2].map(|k| sub(a[(k + 1) % 3], a[k]));
    let eb = [0, 1, 2].map(|k| sub(b[(k + 1) % 3], b[k]));
    let (na, nb) = (cross(ea[0], ea[1]), cross(eb[0], eb[1]));
    let mut axes = vec![na, nb];
    for x in ea {
        axes.extend(eb.iter().map(|&y| cross(x, y)));
        axes.push(cross(na, x));
    }
    axes.extend(eb.iter().map(|&y| cross(nb, y)));
    !axes.iter().any(|&w| {
        let pa = a.map(|p| dot(w, p));
        let pb = b.map(|p| dot(w, p));
        let (amin, amax) = (pa.iter().min().unwrap(), pa.iter().max().unwrap());
        let (bmin, bmax) = (pb.iter().min().unwrap(), pb.iter().max().unwrap());
        amax < bmin || bmax < amin
    })
}

fn to_v3(t: [I3; 3]) -> [V3; 3] {
    t.map(|p| V3::new(p[0] as f64, p[1] as f64, p[2] as f64))
}

fn degenerate_i(t: [I3; 3]) -> bool {
    cross(sub(t[1], t[0]), sub(t[2], t[0])) == [0, 0, 0]
}

#[test]
fn triangle_pairs_match_the_separating_axis_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut hits, mut coplanar, mut n) = (0, 0, 0);
    for round in 0..200_000 {
        // Small ranges make touching and coplanar pairs common; the flat rounds put both in z = 0.
        let r = if round % 2 == 0 { 2 } else { 4 };
        let flat = round % 5 == 0;
        let mut tri =
            || [0; 3].map(|_| [rng.int(r), rng.int(r), if flat { 0 } else { rng.int(r) }]);
        let (a, b) = (tri(), tri());
        if degenerate_i(a) || degenerate_i(b) {
            continue;
        }
        n += 1;
        let want = reference(a, b);
        let got = triangles_intersect(&to_v3(a), &to_v3(b));
        assert_eq!(got, want, "{a:?} {b:?}");
        // The test is symmetric, and scaling by a power of two changes nothing.
        let half = |t: [V3; 3]| t.map(|p| p * 0.5 + V3::repeat(0.25));
        assert_eq!(triangles_intersect(&to_v3(b), &to_v3(a)), want);
        assert_eq!(triangles_intersect(&half(to_v3(a)), &half(to_v3(b))), want);
        hits += usize::from(want);
        coplanar += usize::from(flat && want);
    }
    // Both outcomes, and coplanar overlaps, are well represented.
    assert!(hits > n / 10 && hits < n * 9 / 10, "{hits} of {n}");
    assert!(coplanar > 1000, "{coplanar}");
}

fn v(x: f64, y: f64, z: f64) -> V3 {
    V3::new(x, y, z)
}

#[test]
fn touching_counts_and_near_misses_do_not() {
    let a = [v(0., 0., 0.), v(2., 0., 0.), v(0., 2., 0.)];
    // A vertex exactly on the face; then the same lifted by the smallest step.
    let tip = |z: f64| [v(0.5, 0.5, z), v(0.5, 0.5, 1.0), v(1.0, 0.5, 1.0)];
    assert!(triangles_intersect(&a, &tip(0.0)));
    assert!(!triangles_intersect(&a, &tip(f64::MIN_POSITIVE)));
    assert!(triangles_intersect(&a, &tip(-1e-300)));
    // Coplanar, edge to edge.
    let b = [v(1., 1., 0.), v(2., 2., 0.), v(0., 3., 0.)];
    assert!(triangles_intersect(&a, &b));
    let c = [v(1.0 + 1e-12, 1., 0.), v(2., 2., 0.), v(1.0, 3., 0.)];
    assert!(!triangles_intersect(&a, &c));
}

#[test]
fn adjacent_pairs_meet_only_where_they_share() {
    let (i, j) = ([0, 1, 2], [0, 2, 3]);
    let a = [v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.)];
    // Shared edge 0–2: a bent neighbour meets only along it; a flat one on the far side too.
    assert!(!pair_intersects(
        &i,
        &a,
        &j,
        &[a[0], a[2], v(-1., 0.5, 0.3)]
    ));
    assert!(!pair_intersects(
        &i,
        &a,
        &j,
        &[a[0], a[2], v(-1., 0.5, 0.0)]
    ));
    // Folded onto it (coplanar, same side): intersects.
    assert!(pair_intersects(&i, &a, &j, &[a[0], a[2], v(0.5, 0.2, 0.0)]));
    // Shared vertex 0 only.
    let k = [0, 4, 5];
    let fan = |p: V3, q: V3| [a[0], p, q];
    // Leaves upward: meets only at the vertex.
    assert!(!pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(1., 1., 1.), v(0., 1., 1.))
    ));
    // Pierces through the face: its far edge crosses `a`.
    assert!(pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(0.6, 0.6, -1.), v(0.1, 0.1, 1.))
    ));
    // Coplanar, wedges overlapping / apart.
    assert!(pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(1., 1., 0.), v(-1., 1., 0.))
    ));
    assert!(!pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(-1., 0.5, 0.), v(-1., -1., 0.))
    ));
    // One edge at the vertex lies in the face (the rest above): meets along that edge.
    assert!(pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(0.3, 0.3, 0.), v(0.3, 0.3, 1.))
    ));
    // Coplanar along a shared ray but on the far side: meets only at the vertex.
    assert!(!pair_intersects(
        &i,
        &a,
        &k,
        &fan(v(-1., 0., 0.), v(-1., -1., 0.))
    ));
    // The same face twice.
    assert!(pair_intersects(&i, &a, &i, &a));
}

/// A closed box (12 triangles, outward) over `lo..hi`, vertex indices from `base`.
fn cube(lo: V3, hi: V3, base: u32) -> (Vec<P3>, Vec<[u32; 3]>) {
    let (pts, tris) = crate::geom::box_mesh(P3::from(lo), P3::from(hi));
    (pts, tris.into_iter().map(|t| t.map(|x| x + base)).collect())
}

#[test]
fn closed_boxes_self_intersect_only_when_they_interpenetrate() {
    let (p, t) = cube(V3::zeros(), V3::repeat(1.0), 0);
    assert!(!self_intersects(&Bvh::build(&p, &t), &t));
    // Two boxes in one triangle list: apart, then interpenetrating.
    for (shift, want) in [(2.0, false), (0.5, true)] {
        let (mut p, mut t) = cube(V3::zeros(), V3::repeat(1.0), 0);
        let (p2, t2) = cube(V3::repeat(shift), V3::repeat(shift + 1.0), 8);
        p.extend(p2);
        t.extend(t2);
        assert_eq!(self_intersects(&Bvh::build(&p, &t), &t), want, "{shift}");
    }
}

/// The 2-D split at a shared vertex (the fast path) never says "apart" where the exact rules
/// find a meeting beyond the vertex, and decides most pairs on its own.
#[test]
fn the_split_at_a_shared_vertex_agrees_with_the_exact_rules() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut split, mut meet, mut n) = (0, 0, 0);
    for round in 0..100_000 {
        let r = if round % 2 == 0 { 2 } else { 4 };
        let flat = round % 3 == 0;
        let mut p = || [rng.int(r), rng.int(r), if flat { 0 } else { rng.int(r) }];
        let v0 = p();
        let (a, b) = ([v0, p(), p()], [v0, p(), p()]);
        if degenerate_i(a) || degenerate_i(b) || a[1..].iter().any(|q| b.contains(q)) {
            continue;
        }
        n += 1;
        let (a, b) = (to_v3(a), to_v3(b));
        let (s, m) = (split_at_vertex(&a, &b), meet_beyond_vertex(&a, &b));
        assert!(!(s && m), "{a:?} {b:?}");
        split += usize::from(s);
        meet += usize::from(m);
    }
    assert!(
        split > n / 4 && meet > n / 20,
        "{split} split, {meet} meet, of {n}"
    );
}
