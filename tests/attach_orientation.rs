//! `attach --skeleton-from` a Geppetto rig.json keeps that rig's character frame: a model saved
//! +Z up is drawn upright in the attach thumbnail and `animate` can play a clip on the attached
//! rig (with "as given" it refused: "cannot read the rig's orientation"). A skeleton file that
//! names no frame (a joints list, an artist's truth JSON) still gives "as given".

mod skin_common;

use geppetto::config::RigConfig;
use geppetto::geom::V3;
use geppetto::mesh::write::write_obj;
use geppetto::motion::CharacterFrame;
use geppetto::pipeline::AttachRequest;
use geppetto::rig::Rig;
use geppetto::{NoProgress, Pipeline};
use skin_common::capsule;

#[test]
fn attach_from_a_rig_json_keeps_its_orientation() {
    let dir = std::env::temp_dir().join(format!("geppetto-attach-orient-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mesh = dir.join("body.obj");
    write_obj(&capsule(3.0, 0.4, 16, V3::zeros()), &mesh).expect("write obj");
    let j = skin_common::joint;
    let joints = vec![
        j("hips", None, [0.0, 0.3, 0.0]),
        j("chest", Some(0), [0.0, 2.0, 0.0]),
    ];
    let attach = |rig: &Rig, name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, rig.to_json()).expect("write rig.json");
        let req = AttachRequest::from_file(&mesh, &path).expect("read skeleton");
        Pipeline::new(RigConfig::default())
            .attach(&req, &NoProgress)
            .expect("attach")
            .rig
    };
    let framed = Rig {
        joints: joints.clone(),
        orientation: "+Z up, -Y forward".into(),
        ..Rig::default()
    };
    let got = attach(&framed, "framed.rig.json");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got.orientation, "+Z up, -Y forward");
    let frame = CharacterFrame::from_label(&got.orientation).expect("animate reads it");
    assert!((frame.up_mesh() - V3::z()).norm() < 1e-12);

    std::fs::create_dir_all(&dir).expect("temp dir");
    write_obj(&capsule(3.0, 0.4, 16, V3::zeros()), &mesh).expect("write obj");
    let unframed = Rig {
        joints,
        orientation: "as given".into(),
        ..Rig::default()
    };
    let got = attach(&unframed, "unframed.rig.json");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got.orientation, "as given");
}

/// `attach --orientation +z,-y` records that frame for a skeleton file that names none (a joints
/// list), and a malformed value is a usage error naming the option.
#[test]
fn attach_orientation_flag_sets_the_frame() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mesh = dir.path().join("body.obj");
    write_obj(&capsule(3.0, 0.4, 16, V3::zeros()), &mesh).expect("write obj");
    let skeleton = dir.path().join("skeleton.json");
    std::fs::write(
        &skeleton,
        r#"{"joints": [{"name": "hips", "position": [0, 0.3, 0]},
                       {"name": "chest", "parent": "hips", "position": [0, 2.0, 0]}]}"#,
    )
    .expect("write skeleton");
    let out = dir.path().join("out");
    let run = |orientation: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_geppetto"))
            .arg("attach")
            .arg(&mesh)
            .arg("--skeleton-from")
            .arg(&skeleton)
            .args(["--orientation", orientation, "--format", "json", "--out"])
            .arg(&out)
            .output()
            .expect("run geppetto")
    };
    let ok = run("+z,-y");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let rig = Rig::load(&out.join("body.rig.json")).expect("rig.json");
    assert_eq!(rig.orientation, "+Z up, -Y forward");
    let bad = run("+q,-y");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--orientation '+q,-y'"));
}
