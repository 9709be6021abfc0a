//! The rig does not depend on the input's placement: scaling and translating the mesh (and, with
//! `--orientation auto`, an axis-aligned rotation) leaves the rig unchanged within tolerance, compared
//! in the mesh frame after undoing the transform. Also a known-answer check on the procedural demo
//! humanoid, whose generator knows where its bones are.

use std::path::Path;
use std::sync::Arc;

use geppetto::config::RigConfig;
use geppetto::embed::{Orientation, OrientationMode};
use geppetto::geom::P3;
use geppetto::mesh::Mesh;
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::{Rig, Status};
use geppetto::skeleton::load_template;
use proptest::prelude::*;

fn write_obj(path: &Path, mesh: &Mesh, f: &dyn Fn(&P3) -> P3) {
    let moved = Mesh {
        positions: mesh.positions.iter().map(f).collect(),
        triangles: mesh.triangles.clone(),
    };
    geppetto::mesh::write_obj(&moved, path).expect("write obj");
}

fn rig(pipeline: &Pipeline, path: &Path, orientation: OrientationMode) -> Rig {
    let skel = Arc::new(load_template("human").expect("built-in"));
    let req = RigRequest {
        mesh_path: path.to_path_buf(),
        skeleton: skel.into(),
        hints: None,
        orientation,
        skin: false,
        method: geppetto::pipeline::Method::Embed,
    };
    pipeline.rig(&req, &NoProgress).expect("rigs").rig
}

/// (mean, max, name of the worst joint) distance between corresponding joints.
fn joint_errors(a: &Rig, b: &Rig, undo: &dyn Fn(&P3) -> P3) -> (f64, f64, String) {
    let mut worst = (0.0, String::new());
    let mut sum = 0.0;
    for (x, y) in a.joints.iter().zip(&b.joints) {
        let p = P3::new(x.position[0], x.position[1], x.position[2]);
        let q = undo(&P3::new(y.position[0], y.position[1], y.position[2]));
        let d = (p - q).norm();
        sum += d;
        if d > worst.0 {
            worst = (d, x.name.clone());
        }
    }
    (sum / a.joints.len().max(1) as f64, worst.0, worst.1)
}

#[test]
fn demo_humanoid_rig_matches_its_bones() {
    let demo = geppetto::demo::humanoid(3);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("demo.obj");
    write_obj(&path, &demo.mesh, &|p| *p);
    let r = rig(
        &Pipeline::new(RigConfig::default()),
        &path,
        OrientationMode::Default,
    );
    assert_eq!(r.status, Status::Ok, "{:?}", r.confidence_reasons);
    let ext = demo.mesh.aabb().max_extent();
    for name in [
        "Hips",
        "LeftHand",
        "RightHand",
        "LeftFoot",
        "RightFoot",
        "Head",
        "LeftForeArm",
        "RightLeg",
    ] {
        let (Some(want), Some(got)) = (demo.joint(name), r.joints.iter().find(|j| j.name == name))
        else {
            continue;
        };
        let d = (want - P3::new(got.position[0], got.position[1], got.position[2])).norm() / ext;
        println!(
            "{name}: {:.1}% of the size from the generator's bone",
            100.0 * d
        );
        assert!(d < 0.08, "{name} is {:.1}% of the size away", 100.0 * d);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, ..ProptestConfig::default() })]

    #[test]
    fn rig_is_invariant_to_scale_translation_and_rotation(
        scale in 0.05f64..20.0,
        tx in -100.0f64..100.0,
        ty in -100.0f64..100.0,
        tz in -100.0f64..100.0,
        rot in 0usize..24,
    ) {
        let demo = geppetto::demo::humanoid(1);
        let dir = tempfile::tempdir().expect("tempdir");
        let pipeline = Pipeline::new(RigConfig::default());
        let base_path = dir.path().join("base.obj");
        write_obj(&base_path, &demo.mesh, &|p| *p);
        let o = Orientation::all()[rot];
        let t = geppetto::geom::V3::new(tx, ty, tz);
        // Moved mesh: rotate (template → mesh axes), scale, translate.
        let fwd = |p: &P3| P3::from(o.unapply(&p.coords) * scale + t);
        let undo = |p: &P3| P3::from(o.apply(&((p.coords - t) / scale)));
        let moved_path = dir.path().join("moved.obj");
        write_obj(&moved_path, &demo.mesh, &fwd);
        let ext = demo.mesh.aabb().max_extent();

        // Scale + translation with the default orientation.
        let plain = |p: &P3| P3::from(p.coords * scale + t);
        let plain_undo = |p: &P3| P3::from((p.coords - t) / scale);
        let st_path = dir.path().join("st.obj");
        write_obj(&st_path, &demo.mesh, &plain);
        let a = rig(&pipeline, &base_path, OrientationMode::Default);
        let b = rig(&pipeline, &st_path, OrientationMode::Default);
        let (_, err, name) = joint_errors(&a, &b, &plain_undo);
        prop_assert!(err / ext < 0.01, "scale/translate moved {name} by {:.2}% of the size", 100.0 * err / ext);

        // With Auto, the rotation too.
        let a = rig(&pipeline, &base_path, OrientationMode::Auto);
        let b = rig(&pipeline, &moved_path, OrientationMode::Auto);
        // The octree and medial sampling are tied to the axes (samples on each leaf's low faces), so
        // a rotated mesh gets slightly different spheres: allow discretization-level differences.
        let (mean, max, name) = joint_errors(&a, &b, &undo);
        println!("rotation {}: chose {} / {}, mean {:.2}% max {:.2}% ({name})", o.label(), a.orientation, b.orientation, 100.0 * mean / ext, 100.0 * max / ext);
        prop_assert!(mean / ext < 0.03 && max / ext < 0.10, "rotation {} moved joints by {:.2}% on average, {name} by {:.2}%", o.label(), 100.0 * mean / ext, 100.0 * max / ext);
    }
}
