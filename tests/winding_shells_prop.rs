//! Property test of the per-shell winding number ([`geppetto::discretize::shells::Shells`]):
//! random mixes of closed shells (star-shaped polyhedra and boxes: watertight, consistently
//! oriented, some inverted, nested or overlapping) and open shells (bumpy grid patches, spherical
//! caps), queried at random points and just off the surfaces, against the brute-force winding
//! number Σ exact triangle solid angles / 4π over every triangle.
//!
//! * Closed shells alone: an integer, equal to the brute force rounded (the ray-crossing count).
//! * With open shells: the total within [`OPEN_TOLERANCE`] of the brute force (the open part is
//!   the Barill et al. 2018 dipole sum, see `discretize::winding`). Random mixes give errors up
//!   to 0.025 (median 1.5·10⁻³ over 25,600 queries).

mod discretize_support;

use discretize_support::{boxed, icosphere, Rng};
use geppetto::discretize::shells::Shells;
use geppetto::discretize::winding::WindingClass;
use geppetto::geom::{P3, V3};
use proptest::prelude::*;

/// Largest |fast − brute force| allowed with open shells: the dipole sum's documented bound.
const OPEN_TOLERANCE: f64 = geppetto::discretize::winding::DIPOLE_TOLERANCE;

/// A triangle soup under construction: shells never share a vertex index.
#[derive(Default)]
struct Scene {
    positions: Vec<P3>,
    triangles: Vec<[u32; 3]>,
}

impl Scene {
    fn add(&mut self, verts: &[V3], tris: &[[u32; 3]], flip: bool) {
        let base = self.positions.len() as u32;
        self.positions.extend(verts.iter().map(|v| P3::from(*v)));
        self.triangles.extend(tris.iter().map(|t| {
            let t = t.map(|i| i + base);
            if flip {
                [t[0], t[2], t[1]]
            } else {
                t
            }
        }));
    }
}

/// A random rotation (Gram–Schmidt of two random directions).
fn rotation(rng: &mut Rng) -> [V3; 3] {
    let a = rng.unit();
    let b = (rng.unit() - a * a.dot(&rng.unit())).cross(&a).normalize();
    [a, b, a.cross(&b)]
}

fn place(v: V3, rot: &[V3; 3], scale: f64, at: V3) -> V3 {
    at + (rot[0] * v.x + rot[1] * v.y + rot[2] * v.z) * scale
}

/// A closed star-shaped polyhedron (random radii about its centre) or a box: watertight and
/// outward, or inward when `flip`.
fn closed_shell(rng: &mut Rng, scene: &mut Scene, at: V3, scale: f64, flip: bool) {
    let rot = rotation(rng);
    let (verts, tris): (Vec<V3>, Vec<[u32; 3]>) = if rng.next() < 0.3 {
        let cube = boxed(V3::repeat(-0.5), V3::repeat(0.5), false);
        (cube.pos.iter().map(|p| p.coords).collect(), cube.tri)
    } else {
        let ball = icosphere((rng.next() * 2.0) as u32);
        let radii = ball.pos.iter().map(|p| p.coords * rng.range(0.6, 1.4));
        (radii.collect(), ball.tri)
    };
    let verts: Vec<V3> = verts.iter().map(|&v| place(v, &rot, scale, at)).collect();
    scene.add(&verts, &tris, flip);
}

/// An open shell: a bumpy grid patch or a spherical cap (part of a closed sphere), either
/// orientation.
fn open_shell(rng: &mut Rng, scene: &mut Scene, at: V3, scale: f64) {
    let rot = rotation(rng);
    let flip = rng.next() < 0.5;
    let (verts, tris): (Vec<V3>, Vec<[u32; 3]>) = if rng.next() < 0.5 {
        let n = 3 + (rng.next() * 5.0) as u32;
        let mut verts = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let (x, y) = (
                    f64::from(i) / f64::from(n) - 0.5,
                    f64::from(j) / f64::from(n) - 0.5,
                );
                verts.push(V3::new(x, y, rng.range(-0.15, 0.15)));
            }
        }
        let id = |i: u32, j: u32| j * (n + 1) + i;
        let tris = (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .flat_map(|(i, j)| {
                [
                    [id(i, j), id(i + 1, j), id(i + 1, j + 1)],
                    [id(i, j), id(i + 1, j + 1), id(i, j + 1)],
                ]
            })
            .collect();
        (verts, tris)
    } else {
        let ball = icosphere(1);
        let v: Vec<V3> = ball.pos.iter().map(|p| p.coords).collect();
        let cut = rng.range(-0.6, 0.6);
        let tris = ball
            .tri
            .into_iter()
            .filter(|tri| tri.iter().any(|&i| v[i as usize].z > cut))
            .collect();
        (v, tris)
    };
    let verts: Vec<V3> = verts.iter().map(|&v| place(v, &rot, scale, at)).collect();
    scene.add(&verts, &tris, flip);
}

/// A scene of `closed` closed shells (some nested in the first, some inverted) and `open` open
/// shells in the box [-1, 1]³.
fn scene(seed: u64, closed: usize, open: usize) -> Scene {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut s = Scene::default();
    let mut first = None;
    for _ in 0..closed {
        let nested = first.is_some() && rng.next() < 0.3;
        let (at, scale) = match first {
            Some((c, r)) if nested => (c + rng.unit() * r * 0.1, r * rng.range(0.2, 0.4)),
            _ => (rng.unit() * rng.range(0.0, 0.6), rng.range(0.2, 0.6)),
        };
        first.get_or_insert((at, scale));
        let flip = rng.next() < 0.25;
        closed_shell(&mut rng, &mut s, at, scale, flip);
    }
    for _ in 0..open {
        let (at, scale) = (rng.unit() * rng.range(0.0, 0.7), rng.range(0.2, 0.8));
        open_shell(&mut rng, &mut s, at, scale);
    }
    s
}

/// Signed solid angle of triangle `v` seen from `p` (Van Oosterom & Strackee 1983).
fn solid_angle(p: &V3, v: [V3; 3]) -> f64 {
    let (a, b, c) = (v[0] - p, v[1] - p, v[2] - p);
    let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
    let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
    2.0 * a.dot(&b.cross(&c)).atan2(den)
}

fn brute_force(s: &Scene, p: &V3) -> f64 {
    let omega: f64 = s
        .triangles
        .iter()
        .map(|t| solid_angle(p, t.map(|i| s.positions[i as usize].coords)))
        .sum();
    omega / (4.0 * std::f64::consts::PI)
}

/// Query points: uniform in a box around the scene, and just off random triangles (both sides,
/// 10⁻²…10⁻⁶ of the scene's size).
fn queries(s: &Scene, seed: u64, n: usize) -> Vec<V3> {
    let mut rng = Rng(seed ^ 0xA5A5_5A5A_DEAD_BEEF);
    (0..n)
        .map(|k| {
            if k % 2 == 0 || s.triangles.is_empty() {
                return V3::new(
                    rng.range(-1.6, 1.6),
                    rng.range(-1.6, 1.6),
                    rng.range(-1.6, 1.6),
                );
            }
            let t = s.triangles[(rng.next() * s.triangles.len() as f64) as usize];
            let v = t.map(|i| s.positions[i as usize].coords);
            let (mut a, mut b) = (rng.next(), rng.next());
            if a + b > 1.0 {
                (a, b) = (1.0 - a, 1.0 - b);
            }
            let on = v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b;
            let n = (v[1] - v[0]).cross(&(v[2] - v[0])).normalize();
            let side = if rng.next() < 0.5 { 1.0 } else { -1.0 };
            on + n * side * 10f64.powf(-rng.range(2.0, 6.0))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Closed shells only: the per-shell winding number is the brute force's integer, exactly.
    #[test]
    fn closed_shells_match_brute_force_exactly(seed in any::<u64>(), closed in 1usize..5) {
        let s = scene(seed, closed, 0);
        let shells = Shells::new(&s.positions, &s.triangles);
        prop_assert_eq!(shells.counts(), (closed, 0));
        for p in queries(&s, seed, 64) {
            let (fast, exact) = (shells.winding(&p), brute_force(&s, &p));
            prop_assert_eq!(fast, fast.round(), "not an integer at {:?}", p);
            prop_assert_eq!(fast, exact.round(), "at {:?}: brute force {}", p, exact);
        }
    }

    /// Closed and open shells: the total within the dipole sum's tolerance of the brute force.
    #[test]
    fn mixed_shells_match_brute_force(seed in any::<u64>(), closed in 0usize..4, open in 1usize..5) {
        let s = scene(seed, closed, open);
        let shells = Shells::new(&s.positions, &s.triangles);
        prop_assert_eq!(shells.counts().0, closed);
        for p in queries(&s, seed, 64) {
            let (fast, exact) = (shells.winding(&p), brute_force(&s, &p));
            prop_assert!((fast - exact).abs() <= OPEN_TOLERANCE, "at {:?}: fast {} brute force {}", p, fast, exact);
        }
    }

    /// The certified fast sum (`Shells::winding_bounded`, polynomial `atan2`): within its own
    /// error bound of `Shells::winding` at every query, the bound small (so the exact sum is
    /// rarely needed), and the class it settles is the exact value's.
    #[test]
    fn fast_winding_stays_within_its_bound(seed in any::<u64>(), closed in 0usize..4, open in 1usize..5) {
        let s = scene(seed, closed, open);
        let shells = Shells::new(&s.positions, &s.triangles);
        for p in queries(&s, seed, 64) {
            let (fast, err) = shells.winding_bounded(&p);
            let exact = shells.winding(&p);
            prop_assert!((fast - exact).abs() <= err, "at {:?}: fast {} exact {} bound {:e}", p, fast, exact, err);
            prop_assert!(err < 1e-5, "bound {:e} at {:?}", err, p);
            prop_assert_eq!(shells.class(&p), WindingClass::of(exact));
        }
    }
}
