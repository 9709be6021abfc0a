//! GLB export: read back with the `gltf` crate (joint names, bind positions from the inverse bind
//! matrices, top-4 weights), Khronos glTF-Validator when `GLTF_VALIDATOR_DIR` is set, and the
//! Pinocchio text outputs.

mod skin_common;

use std::path::PathBuf;

use geppetto::export::{glb, write_rig, Format};
use geppetto::geom::{P3, V3};
use geppetto::mesh::Mesh;
use geppetto::rig::{Rig, RigJoint};
use skin_common::{capsule, capsule_sdf, chain, prepare, run};

/// A skinned capsule rig (mesh frame offset and scaled so the bind pose is not at the origin).
fn rig_and_mesh() -> (Rig, Mesh) {
    let (len, r) = (3.4, 0.3);
    let off = V3::new(10.0, -5.0, 2.0);
    let mesh = prepare(capsule(len, r, 12, off), None);
    let mut joints = chain(1.0);
    for j in &mut joints {
        for k in 0..3 {
            j.position[k] += off[k];
        }
    }
    let skin = run(&mesh, move |p| capsule_sdf(p, len, r, off), &joints);
    let rig = Rig {
        mesh: "capsule.obj".into(),
        skeleton: "test".into(),
        vertex_count: mesh.input.positions.len(),
        joints,
        skin: Some(skin.weights),
        ..Rig::default()
    };
    (rig, mesh.input)
}

fn write(rig: &Rig, mesh: &Mesh, formats: &[Format]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = write_rig(rig, mesh, dir.path(), formats).expect("write");
    (dir, paths)
}

#[test]
fn glb_reads_back_with_same_joints_positions_and_weights() {
    let (rig, mesh) = rig_and_mesh();
    let (_dir, paths) = write(&rig, &mesh, &[Format::Glb]);
    let (doc, buffers, _) = gltf::import(&paths[0]).expect("import");
    let skin = doc.skins().next().expect("a skin");
    let names: Vec<String> = skin
        .joints()
        .map(|n| n.name().unwrap_or("").to_string())
        .collect();
    let expect: Vec<String> = rig.joints.iter().map(|j| j.name.clone()).collect();
    assert_eq!(names, expect);
    let reader = skin.reader(|b| Some(&buffers[b.index()]));
    let ibms: Vec<[[f32; 4]; 4]> = reader.read_inverse_bind_matrices().expect("ibm").collect();
    for (m, j) in ibms.iter().zip(&rig.joints) {
        for (t, p) in m[3].iter().zip(&j.position) {
            assert!((-f64::from(*t) - p).abs() < 1e-4);
        }
    }
    let node = doc
        .nodes()
        .find(|n| n.skin().is_some())
        .expect("skinned node");
    assert!(doc
        .scenes()
        .next()
        .expect("scene")
        .nodes()
        .any(|n| n.index() == node.index()));
    let prim = node
        .mesh()
        .expect("mesh")
        .primitives()
        .next()
        .expect("primitive");
    let r = prim.reader(|b| Some(&buffers[b.index()]));
    let pos: Vec<[f32; 3]> = r.read_positions().expect("positions").collect();
    assert_eq!(pos.len(), mesh.positions.len());
    for (a, b) in pos.iter().zip(&mesh.positions) {
        assert!((P3::new(a[0].into(), a[1].into(), a[2].into()) - b).norm() < 1e-4);
    }
    let joints: Vec<[u16; 4]> = r.read_joints(0).expect("joints").into_u16().collect();
    let weights: Vec<[f32; 4]> = r.read_weights(0).expect("weights").into_f32().collect();
    let skin_rows = rig.skin.as_ref().expect("skin");
    for ((j, w), row) in joints.iter().zip(&weights).zip(skin_rows) {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6);
        let top: Vec<(u32, f64)> = row.iter().take(4).copied().collect();
        let total: f64 = top.iter().map(|e| e.1).sum();
        for (k, &(joint, weight)) in top.iter().enumerate() {
            assert_eq!(u32::from(j[k]), joint);
            assert!((f64::from(w[k]) - weight / total).abs() < 1e-6);
        }
    }
    let tris = r.read_indices().expect("indices").into_u32().count();
    assert_eq!(tris, mesh.triangles.len() * 3);
}

#[test]
fn top_influences_sum_to_one_in_f32() {
    let row = vec![(3, 0.31), (1, 0.29), (7, 0.2), (2, 0.15), (9, 0.05)];
    let (j, w) = glb::top_influences(&row);
    assert_eq!(j, [3, 1, 7, 2]);
    assert_eq!(w.iter().sum::<f32>(), 1.0);
    assert!((w[3] - (0.15 / 0.95) as f32).abs() < 1e-6);
}

#[test]
fn pinocchio_outputs_have_one_row_per_input_vertex() {
    let (rig, mesh) = rig_and_mesh();
    let (_dir, paths) = write(&rig, &mesh, &[Format::Json, Format::Pinocchio]);
    assert_eq!(paths.len(), 3);
    let skel = std::fs::read_to_string(&paths[1]).expect("skeleton.out");
    assert_eq!(skel.lines().count(), rig.joints.len());
    assert!(skel.starts_with("0 10 -4.8 2 -1\n"), "{skel}");
    let att = std::fs::read_to_string(&paths[2]).expect("attachment.out");
    assert_eq!(att.lines().count(), mesh.positions.len());
    for line in att.lines() {
        let w: Vec<f64> = line
            .split_whitespace()
            .map(|x| x.parse().expect("number"))
            .collect();
        assert_eq!(w.len(), rig.joints.len() - 1);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 3e-4);
        assert!(line.ends_with(' '));
    }
}

#[test]
fn glb_passes_khronos_validator() {
    let (rig, mesh) = rig_and_mesh();
    let (_dir, paths) = write(&rig, &mesh, &[Format::Glb]);
    // Also a rig without weights (skeleton preview) and one with several roots.
    let mut bare = rig.clone();
    bare.skin = None;
    bare.mesh = "bare.obj".into();
    let (_d2, p2) = write(&bare, &mesh, &[Format::Glb]);
    let mut roots = rig.clone();
    roots.mesh = "roots.obj".into();
    roots.joints.push(RigJoint {
        name: "prop".into(),
        parent: None,
        position: [0.0, 0.0, 0.0],
        end: false,
    });
    let (_d3, p3) = write(&roots, &mesh, &[Format::Glb]);
    if let Some((ok, report)) = skin_common::gltf_validator(&[&paths[0], &p2[0], &p3[0]]) {
        println!("{report}");
        assert!(ok, "validator reported errors:\n{report}");
        assert!(
            !report.contains("  warning "),
            "validator warnings:\n{report}"
        );
    }
}

proptest::proptest! {
    /// Any weight list (any length, any positive weights) becomes at most 4 influences that sum
    /// to exactly 1 in f32, heaviest first.
    #[test]
    fn top_influences_always_normalized(
        row in proptest::collection::vec((0u32..200, 1e-6f64..1.0), 1..12)
    ) {
        let (j, w) = glb::top_influences(&row);
        let sum: f32 = w.iter().sum();
        proptest::prop_assert!((sum - 1.0).abs() <= f32::EPSILON * 2.0);
        proptest::prop_assert!(w.iter().all(|x| (0.0..=1.0).contains(x)));
        for k in 1..4 {
            if w[k] > 0.0 {
                proptest::prop_assert!(w[k - 1] >= w[k] - 1e-6);
                proptest::prop_assert!(row.iter().any(|e| e.0 == u32::from(j[k])));
            }
        }
    }
}
