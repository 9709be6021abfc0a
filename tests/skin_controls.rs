//! Issue 12 §2: an artist skeleton's control joints deform nothing (`skin::controls`). A body (a
//! capsule) carries a spine chain whose root stands on the ground below it, with its bone up into
//! the hips, a camera node beside it, and a 3ds Max style `…_nub` tip marker inside the top. Heat
//! diffusion alone gives the ground root a share of the hips (its bone's inside stretch is as near
//! to them as the hip bone) and the nub the top; through `attach` the root, the camera and the nub
//! are marked as end markers, own no vertex, are named in a warning, the hips go to the hip joint
//! and the top to the chest. Weights stay a partition of unity.

mod skin_common;

use geppetto::config::RigConfig;
use geppetto::geom::{P3, V3};
use geppetto::mesh::write::write_obj;
use geppetto::pipeline::AttachRequest;
use geppetto::rig::RigJoint;
use geppetto::{NoProgress, Pipeline};
use skin_common::{assert_valid, capsule, capsule_sdf, prepare, run};

const LEN: f64 = 3.0;
const R: f64 = 0.4;

fn joints() -> Vec<RigJoint> {
    let j = skin_common::joint;
    vec![
        j("ground", None, [0.0, -1.6, 0.0]),
        j("hips", Some(0), [0.0, 0.3, 0.0]),
        j("spine", Some(1), [0.0, 1.5, 0.0]),
        j("chest", Some(2), [0.0, 2.6, 0.0]),
        j("camera", None, [2.0, 1.5, 0.0]),
        j("Chest_nub", Some(3), [0.0, 3.0, 0.0]),
    ]
}

/// Total weight joint `j` carries over all vertices.
fn mass(w: &[Vec<(u32, f64)>], j: u32) -> f64 {
    w.iter().flatten().filter(|e| e.0 == j).map(|e| e.1).sum()
}

#[test]
fn a_ground_root_and_a_camera_own_no_vertices_through_attach() {
    let body = capsule(LEN, R, 16, V3::zeros());
    // The failure this guards against: heat alone weights the ground root.
    let mesh = prepare(body.clone(), None);
    let plain = run(
        &mesh,
        |p: &P3| capsule_sdf(p, LEN, R, V3::zeros()),
        &joints(),
    );
    assert_valid(&plain, body.positions.len(), 6);
    let before = mass(&plain.weights, 0);
    assert!(before > 1.0, "heat alone gives the ground root {before}");
    let nub = mass(&plain.weights, 5);
    assert!(nub > 1.0, "heat alone gives the nub {nub}");

    let dir = std::env::temp_dir().join(format!("geppetto-controls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("body.obj");
    write_obj(&body, &path).expect("write obj");
    let req = AttachRequest {
        mesh_path: path,
        joints: joints(),
        source: dir.join("skeleton.json"),
        notes: Vec::new(),
        orientation: None,
    };
    let done = Pipeline::new(RigConfig::default())
        .attach(&req, &NoProgress)
        .expect("attach");
    let _ = std::fs::remove_dir_all(&dir);
    let ends: Vec<bool> = done.rig.joints.iter().map(|j| j.end).collect();
    assert_eq!(ends, vec![true, false, false, false, true, true]);
    let warned = |name: &str| done.rig.warnings.iter().any(|w| w.contains(name));
    assert!(
        warned("ground") && warned("camera") && warned("Chest_nub"),
        "{:?}",
        done.rig.warnings
    );
    let w = &done.skin.weights;
    assert_valid(&done.skin, body.positions.len(), 6);
    for j in [0, 4, 5] {
        assert_eq!(mass(w, j), 0.0, "joint {j}");
    }
    let top = body.positions.iter().zip(w).filter(|(p, _)| p.y > 3.1);
    assert!(top.clone().count() > 0);
    assert!(top.into_iter().all(|(_, row)| row[0].0 == 3));
    // The bottom of the body (below the hip joint) follows the hips.
    let bottom: Vec<&Vec<(u32, f64)>> = body
        .positions
        .iter()
        .zip(w)
        .filter(|(p, _)| p.y < 0.1)
        .map(|(_, row)| row)
        .collect();
    assert!(!bottom.is_empty());
    assert!(bottom.iter().all(|row| row[0].0 == 1), "{bottom:?}");
}
