//! Issue 12 §2: distances to bones are oriented (`skin::heat::oriented_distance`, Blender's form of
//! the original's cone test): the distance is divided by how squarely the vertex's surface faces
//! the bone. The normals are those of the prepared mesh, whose shells `prepare` turns outward, so
//! the weights cannot depend on the input's face winding (the original's cone test did:
//! pinocchio-facts §10). The quality effect is measured on artist skins
//! (`tests/skin_attach_corpus.rs`, bench/results.md "Influence recall").

mod skin_common;

use geppetto::geom::{P3, V3};
use geppetto::mesh::{self, Mesh};
use geppetto::skin::{skin_with_sdf, SkinOptions};
use skin_common::{assert_valid, capsule, capsule_sdf};

const LEN: f64 = 3.0;
const R: f64 = 0.4;

fn joints() -> Vec<geppetto::rig::RigJoint> {
    let j = skin_common::joint;
    vec![
        j("hips", None, [0.0, 0.3, 0.0]),
        j("chest", Some(0), [0.0, 1.6, 0.0]),
        j("head", Some(1), [0.15, 2.5, 0.0]),
    ]
}

fn skin_of(body: Mesh, oriented: bool) -> geppetto::skin::Skin {
    let pm = mesh::prepare(body).expect("prepare");
    let n = pm.normalization;
    let sdf = move |p: &P3| capsule_sdf(&n.to_mesh(p), LEN, R, V3::zeros()) * n.scale;
    let opts = SkinOptions {
        oriented,
        ..SkinOptions::default()
    };
    skin_with_sdf(&pm, &sdf, &joints(), &opts).expect("skin")
}

#[test]
fn oriented_weights_do_not_depend_on_the_face_winding() {
    let body = capsule(LEN, R, 16, V3::zeros());
    let mut flipped = body.clone();
    flipped.triangles.iter_mut().for_each(|t| t.swap(1, 2));
    let a = skin_of(body.clone(), true);
    let b = skin_of(flipped, true);
    assert_valid(&a, body.positions.len(), 3);
    assert_eq!(
        a.weights, b.weights,
        "flipping every face changed the weights"
    );
    // The option is live: plain distances give other weights on this bent chain.
    let plain = skin_of(body, false);
    let moved = a
        .weights
        .iter()
        .zip(&plain.weights)
        .filter(|(x, y)| {
            let w = |r: &Vec<(u32, f64)>, j| r.iter().find(|e| e.0 == j).map_or(0.0, |e| e.1);
            (0..3).any(|j| (w(x, j) - w(y, j)).abs() > 1e-3)
        })
        .count();
    assert!(moved > 0, "oriented distances changed no weight");
}
