//! The distance field's speed-ups are exact: the field built with the Lipschitz skip (lattice
//! points whose split test is settled by the 1-Lipschitz bound are not evaluated) equals, bit
//! for bit, the reference field that evaluates every lattice point of every tested cell, on
//! synthetic meshes of both sign methods and on corpus meshes.

mod discretize_support;

use discretize_support::*;
use geppetto::discretize::{field, DiscretizeOptions};
use geppetto::geom::V3;
use geppetto::mesh::{self, PreparedMesh};

/// Build fast and reference; assert the same bits, and (pseudo-normal sign, where the skip
/// applies) fewer exact queries. Returns (fast, reference) query counts.
fn assert_exact(pm: &PreparedMesh, label: &str) -> (usize, usize) {
    let opts = DiscretizeOptions::default();
    let fast = field::build(pm, &opts);
    let reference = field::build_reference(&pm.positions, &pm.triangles, &opts);
    assert!(fast.stats().leaves > 8, "{label}: the octree was refined");
    assert!(
        fast.same_bits(&reference),
        "{label}: the Lipschitz skip changed the field ({} vs {} leaves)",
        fast.stats().leaves,
        reference.stats().leaves
    );
    let (q, q_ref) = (fast.stats().exact_queries, reference.stats().exact_queries);
    if fast.stats().sign_method == "pseudo-normal" {
        assert!(q < q_ref, "{label}: {q} queries, reference {q_ref}");
    } else {
        assert_eq!(q, q_ref, "{label}: winding sign: every point evaluated");
    }
    (q, q_ref)
}

#[test]
fn lipschitz_skip_is_exact_on_synthetic_meshes() {
    // Pseudo-normal sign: one closed outward shell (a sphere, a box).
    assert_exact(&prepared(&icosphere(4)), "sphere");
    assert_exact(
        &prepared(&boxed(V3::zeros(), V3::new(2.0, 1.0, 1.5), false)),
        "box",
    );
    // Winding sign: an open box; nested and overlapping spheres (internal triangles culled).
    assert_exact(
        &prepared(&boxed(V3::zeros(), V3::new(1.0, 1.0, 1.0), true)),
        "open box",
    );
    let mut m = icosphere(3);
    m.add(&icosphere(3).affine(1.0, V3::new(1.2, 0.0, 0.0)));
    m.add(&icosphere(3).affine(0.4, V3::zeros()));
    assert_exact(&prepared(&m), "nested spheres");
    assert_exact(
        &prepared(&sphere_chain(V3::zeros(), V3::new(3.0, 0.5, 0.0), 0.3, 7)),
        "sphere chain",
    );
}

#[test]
fn lipschitz_skip_is_exact_on_corpus_meshes() {
    // fox: a thin closed shell; bob_lamp: open parts, winding sign, internal triangles;
    // spider_parts: many separate pieces; cheburashka: large flat ears; camel and smpl_man: one
    // watertight shell that intersects itself (the pseudo-normal sign flipped in free space
    // there, and the skip was not exact: smpl_man 14 582 leaves vs the reference's 18 866).
    for name in [
        "fox",
        "bob_lamp",
        "spider_parts",
        "cheburashka",
        "sveta",
        "camel",
        "smpl_man",
    ] {
        let Some(path) = corpus_mesh(name) else {
            return;
        };
        let pm = mesh::prepare(mesh::load(&path).expect("corpus mesh loads")).expect("prepares");
        let (q, q_ref) = assert_exact(&pm, name);
        let crossing = field::build(&pm, &DiscretizeOptions::default())
            .stats()
            .self_intersecting;
        assert_eq!(crossing, matches!(name, "camel" | "smpl_man"), "{name}");
        println!("{name}: {q} exact queries, reference {q_ref}");
    }
}

/// A closed outward sphere whose cap beyond x = 0.5 is pushed 1.2 back along −x: still one
/// watertight, consistently oriented shell of positive volume, but the cap now pokes out through
/// the far side (it intersects itself), so the pseudo-normal sign is not the inside/outside there.
fn pushed_sphere() -> Tris {
    let mut m = icosphere(3);
    for p in &mut m.pos {
        if p.x > 0.5 {
            p.x -= 1.2;
        }
    }
    m
}

#[test]
fn a_self_intersecting_shell_gets_the_winding_sign_and_an_exact_field() {
    let opts = DiscretizeOptions::default();
    let clean = field::build(&prepared(&icosphere(3)), &opts);
    assert_eq!(clean.stats().sign_method, "pseudo-normal");
    assert!(!clean.stats().self_intersecting);
    let pm = prepared(&pushed_sphere());
    let f = field::build(&pm, &opts);
    assert_eq!(f.stats().sign_method, "winding", "self-intersecting shell");
    assert!(f.stats().self_intersecting);
    assert_exact(&pm, "pushed sphere");
}
