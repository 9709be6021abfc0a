//! `geppetto attach` and `geppetto pose` end to end on a generated capsule (no corpus needed).

mod skin_common;

use std::fmt::Write as _;
use std::process::Command;

use geppetto::geom::V3;
use geppetto::rig::Rig;
use skin_common::{capsule, chain};

fn geppetto(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(args)
        .output()
        .expect("run geppetto")
}

fn read_obj_vertices(path: &std::path::Path) -> Vec<[f64; 3]> {
    std::fs::read_to_string(path)
        .expect("obj")
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f64> = l
                .split_whitespace()
                .map(|x| x.parse().expect("float"))
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

#[test]
fn attach_then_pose() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mesh = capsule(3.4, 0.3, 12, V3::zeros());
    let mut obj = String::new();
    for p in &mesh.positions {
        let _ = writeln!(obj, "v {} {} {}", p.x, p.y, p.z);
    }
    for t in &mesh.triangles {
        let _ = writeln!(obj, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    let obj_path = dir.path().join("capsule.obj");
    std::fs::write(&obj_path, obj).expect("write obj");
    let skel = Rig {
        mesh: "capsule.obj".into(),
        joints: chain(1.0),
        ..Rig::default()
    };
    let skel_path = dir.path().join("skeleton.rig.json");
    std::fs::write(&skel_path, skel.to_json()).expect("write skeleton");
    let out = dir.path().join("out");
    let o = geppetto(&[
        "attach",
        obj_path.to_str().expect("utf8"),
        "--skeleton-from",
        skel_path.to_str().expect("utf8"),
        "--out",
        out.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rig = Rig::load(&out.join("capsule.rig.json")).expect("rig.json");
    assert!(rig.skeleton.starts_with("from "));
    assert_eq!(rig.joints, chain(1.0));
    let skin = rig.skin.as_ref().expect("skin");
    assert_eq!(skin.len(), mesh.positions.len());
    assert!(out.join("capsule.glb").exists());

    let rig_path = out.join("capsule.rig.json");
    let rig_arg = rig_path.to_str().expect("utf8");
    let mesh_arg = obj_path.to_str().expect("utf8");
    let bind = dir.path().join("bind.obj");
    let o = geppetto(&[
        "pose",
        rig_arg,
        "--mesh",
        mesh_arg,
        "--out",
        bind.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (a, b) in read_obj_vertices(&bind).iter().zip(&mesh.positions) {
        assert!((a[0] - b.x).abs() + (a[1] - b.y).abs() + (a[2] - b.z).abs() < 1e-9);
    }
    let posed = dir.path().join("posed.obj");
    let o = geppetto(&[
        "pose",
        rig_arg,
        "--mesh",
        mesh_arg,
        "--random",
        "7",
        "--out",
        posed.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let moved = read_obj_vertices(&posed);
    assert_eq!(moved.len(), mesh.positions.len());
    let max_move = moved
        .iter()
        .zip(&mesh.positions)
        .map(|(a, b)| ((a[0] - b.x).powi(2) + (a[1] - b.y).powi(2) + (a[2] - b.z).powi(2)).sqrt())
        .fold(0.0, f64::max);
    assert!(max_move > 0.05, "random pose moved nothing ({max_move})");
}
