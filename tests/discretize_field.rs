//! Distance field: accuracy against exact distances, sign on open / multi-shell meshes, and
//! invariance of the normalized field under scaling and translating the input.

mod discretize_support;

use discretize_support::*;
use geppetto::discretize::bvh::{closest_on_triangle, Tri};
use geppetto::discretize::{field, DiscretizeOptions, DistanceField};
use geppetto::geom::{P3, V3};

/// Unsigned exact distance by brute force over the normalized triangles.
fn brute(pm: &geppetto::mesh::PreparedMesh, p: &P3) -> f64 {
    pm.triangles
        .iter()
        .map(|t| {
            let tri = Tri {
                v: t.map(|i| pm.positions[i as usize].coords),
            };
            (closest_on_triangle(&p.coords, &tri).0 - p.coords).norm()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Check |field − signed exact| inside and the sign everywhere except where `skip` says.
fn check_accuracy(
    m: &Tris,
    inside: impl Fn(&P3) -> bool,
    skip: impl Fn(&P3) -> bool,
    label: &str,
) -> DistanceField {
    let pm = prepared(m);
    let opts = DiscretizeOptions::default();
    let f = field::build(&pm, &opts);
    let tau = opts.tolerance;
    let mut rng = Rng(7);
    let (mut worst, mut n_near) = (0.0f64, 0);
    for _ in 0..4000 {
        let p = rng.point();
        if skip(&p) {
            continue;
        }
        let d = brute(&pm, &p);
        let want = if inside(&p) { -d } else { d };
        let got = f.eval(&p);
        if d > 3.0 * tau {
            assert_eq!(
                got < 0.0,
                want < 0.0,
                "{label}: sign at {p:?}: {got} vs {want}"
            );
        }
        // Interior cells are refined to τ; exterior cells are cropped without the τ test
        // (pinocchio-facts §1), so only interior values are checked for accuracy.
        if want < 0.0 {
            worst = worst.max((got - want).abs());
            n_near += 1;
        }
    }
    assert!(n_near > 100, "{label}: too few test points near or inside");
    assert!(worst < 2.0 * tau, "{label}: worst error {worst} > 2τ");
    f
}

#[test]
fn sphere_field_matches_exact_distance() {
    let m = icosphere(4);
    let pm = prepared(&m);
    let c = P3::new(0.5, 0.5, 0.5);
    let r = pm
        .positions
        .iter()
        .map(|p| (p - c).norm())
        .fold(0.0, f64::max);
    let f = check_accuracy(&m, |p| (p - c).norm() < r - 1e-3, |_| false, "sphere");
    assert!(
        (f.eval(&c) + r).abs() < 0.01,
        "centre depth {} vs {r}",
        -f.eval(&c)
    );
    assert_eq!(f.stats().sign_method, "pseudo-normal");
}

#[test]
fn box_field_matches_exact_distance() {
    let m = boxed(V3::new(0.0, 0.0, 0.0), V3::new(2.0, 1.0, 1.5), false);
    let pm = prepared(&m);
    let (lo, hi) = (pm.positions[0], pm.positions[7]);
    let inside = |p: &P3| (0..3).all(|k| p[k] > lo[k] && p[k] < hi[k]);
    check_accuracy(&m, inside, |_| false, "box");
}

#[test]
fn open_box_interior_is_inside() {
    let m = boxed(V3::zeros(), V3::new(1.0, 1.0, 1.0), true);
    let pm = prepared(&m);
    let (lo, hi) = (pm.positions[0], pm.positions[7]);
    let inside = |p: &P3| (0..3).all(|k| p[k] > lo[k] && p[k] < hi[k]);
    // Above the missing face the winding number is close to ½ (a soft virtual cap): skip it.
    let f = check_accuracy(&m, inside, |p| p.y > hi.y - 0.1, "open box");
    assert_eq!(f.stats().sign_method, "winding");
    assert!(
        f.eval(&P3::new(0.5, 0.9, 0.5)) < 0.0,
        "near the open face, still inside"
    );
}

#[test]
fn overlapping_and_nested_spheres_are_inside() {
    let mut m = icosphere(3);
    m.add(&icosphere(3).affine(1.0, V3::new(1.2, 0.0, 0.0)));
    m.add(&icosphere(3).affine(0.4, V3::new(0.0, 0.0, 0.0)));
    let pm = prepared(&m);
    let f = field::build(&pm, &DiscretizeOptions::default());
    assert_eq!(f.stats().sign_method, "winding");
    let to_n = |x: f64, y: f64, z: f64| pm.normalization.to_normalized(&P3::new(x, y, z));
    for (p, want_inside) in [
        (to_n(0.0, 0.0, 0.0), true),   // inside the nested sphere
        (to_n(0.0, 0.0, 0.6), true),   // between nested and outer
        (to_n(0.6, 0.0, 0.0), true),   // in the overlap of the two big spheres
        (to_n(0.9, 0.0, 0.0), true),   // inside the first, near the second's surface inside it
        (to_n(1.8, 0.0, 0.0), true),   // inside the second only
        (to_n(0.6, 0.95, 0.0), false), // above the waist between them
        (to_n(-1.05, 0.0, 0.0), false),
    ] {
        assert_eq!(f.inside(&p), want_inside, "at {p:?}: {}", f.eval(&p));
    }
}

#[test]
fn sphere_with_open_neck_is_inside() {
    let mut m = icosphere(3);
    m.tri
        .retain(|t| t.iter().all(|&i| m.pos[i as usize].y < 0.85));
    let pm = prepared(&m);
    let f = field::build(&pm, &DiscretizeOptions::default());
    let c = pm.normalization.to_normalized(&P3::new(0.0, 0.0, 0.0));
    assert!(f.eval(&c) < -0.3, "centre {}", f.eval(&c));
    let below_hole = pm.normalization.to_normalized(&P3::new(0.0, 0.7, 0.0));
    assert!(f.inside(&below_hole));
}

#[test]
fn outside_unit_cube_is_positive_and_gradient_points_out() {
    let f = field::build(&prepared(&icosphere(2)), &DiscretizeOptions::default());
    for p in [
        P3::new(-0.5, 0.5, 0.5),
        P3::new(2.0, 3.0, -1.0),
        P3::new(0.5, 1.0001, 0.5),
    ] {
        assert!(f.eval(&p) > 0.0);
        assert!(f.eval(&p).is_finite());
    }
    assert!(f.gradient(&P3::new(1.5, 0.5, 0.5)).x > 0.0);
    // A non-finite query is far outside, never inside and never NaN (it would poison a search).
    for p in [
        P3::new(f64::NAN, 0.5, 0.5),
        P3::new(0.5, f64::INFINITY, 0.5),
    ] {
        let v = f.eval(&p);
        assert!(v.is_finite() && v >= 1.0, "field at {p:?} is {v}");
        assert!(!f.inside(&p));
        assert_eq!(f.gradient(&p), V3::zeros(), "gradient at {p:?}");
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let f = field::build(&prepared(&icosphere(3)), &DiscretizeOptions::default());
    let mut rng = Rng(3);
    for _ in 0..200 {
        let p = P3::from(rng.point().coords * 0.8 + V3::repeat(0.1));
        let g = f.gradient(&p);
        let h = 1e-7;
        for k in 0..3 {
            let mut e = V3::zeros();
            e[k] = h;
            let fd = (f.eval(&(p + e)) - f.eval(&(p - e))) / (2.0 * h);
            // Across a leaf boundary the one-sided slopes differ: only compare clear cases.
            if (fd - g[k]).abs() > 1e-3 {
                let l = (f.eval(&p) - f.eval(&(p - e))) / h;
                let r = (f.eval(&(p + e)) - f.eval(&p)) / h;
                assert!(
                    (l - g[k]).abs() < 1e-3 || (r - g[k]).abs() < 1e-3,
                    "{p:?} {k}"
                );
            }
        }
    }
}

#[test]
fn normalized_field_is_invariant_under_scale_and_translation() {
    let mut m = icosphere(3);
    m.add(&boxed(
        V3::new(0.5, -0.2, -0.2),
        V3::new(2.0, 0.2, 0.2),
        false,
    ));
    let a = field::build(&prepared(&m), &DiscretizeOptions::default());
    let b = field::build(
        &prepared(&m.affine(37.5, V3::new(-100.0, 4.0, 2.5e3))),
        &DiscretizeOptions::default(),
    );
    assert_eq!(a.stats().leaves, b.stats().leaves);
    let mut rng = Rng(11);
    for _ in 0..2000 {
        let p = rng.point();
        assert!((a.eval(&p) - b.eval(&p)).abs() < 1e-6, "{p:?}");
    }
}

#[test]
fn empty_mesh_field_is_positive() {
    let f = field::build_from(&[], &[], &DiscretizeOptions::default());
    assert!(f.eval(&P3::new(0.5, 0.5, 0.5)) > 0.0);
    assert_eq!(f.stats().sign_method, "none");
}

#[test]
fn field_is_send_sync_clone_debug() {
    fn check<T: Clone + std::fmt::Debug + Send + Sync>() {}
    check::<DistanceField>();
    check::<geppetto::discretize::SphereGraph>();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Anywhere (inside the cube or far outside), eval and gradient are finite; outside the unit
    /// cube the field is positive.
    #[test]
    fn eval_is_finite_everywhere(x in -5.0f64..5.0, y in -5.0f64..5.0, z in -5.0f64..5.0) {
        use std::sync::OnceLock;
        static F: OnceLock<DistanceField> = OnceLock::new();
        let f = F.get_or_init(|| field::build(&prepared(&icosphere(2)), &DiscretizeOptions::default()));
        let p = P3::new(x, y, z);
        let v = f.eval(&p);
        proptest::prop_assert!(v.is_finite());
        proptest::prop_assert!(f.gradient(&p).iter().all(|g| g.is_finite()));
        if [x, y, z].iter().any(|c| !(0.0..=1.0).contains(c)) {
            proptest::prop_assert!(v > 0.0);
        }
    }
}
