//! Issue 12 §2: a rigged skeleton file states which joints deform. A body (a capsule) carries a
//! hips → spine → chest chain and an IK goal inside it (a leaf under the hips, as an artist's
//! spine or hand target is). The artist's own skin (in a corpus truth JSON, and in a GLB written
//! from the same rig) never uses the goal. Heat alone gives the goal a share of the body; through
//! `attach --skeleton-from` that file the goal is an end marker, owns no vertex and is named in a
//! warning, while `--weight-every-joint` (`from_file_with(.., false)`) and a Geppetto rig.json
//! (whose skin is ours, not an artist's statement) weight it as before.

mod skin_common;

use std::path::Path;

use geppetto::config::RigConfig;
use geppetto::export::{write_rig, Format};
use geppetto::geom::V3;
use geppetto::mesh::write::write_obj;
use geppetto::pipeline::{AttachRequest, Attached};
use geppetto::rig::{Rig, RigJoint, SkinTable};
use geppetto::{NoProgress, Pipeline};
use skin_common::{assert_valid, capsule};

const LEN: f64 = 3.0;
const R: f64 = 0.4;
const GOAL: u32 = 3;

fn joints() -> Vec<RigJoint> {
    let j = skin_common::joint;
    vec![
        j("hips", None, [0.0, 0.3, 0.0]),
        j("spine", Some(0), [0.0, 1.3, 0.0]),
        j("chest", Some(1), [0.0, 2.4, 0.0]),
        j("spine_ik_goal", Some(0), [0.15, 1.6, 0.0]),
    ]
}

/// The artist's binding: each vertex rigidly on the chain joint of its height; the goal unused.
fn artist_skin(heights: impl Iterator<Item = f64>) -> SkinTable {
    heights
        .map(|y| vec![(u32::from(y > 0.8) + u32::from(y > 1.9), 1.0)])
        .collect()
}

/// Total weight joint `j` carries over all vertices.
fn mass(done: &Attached, j: u32) -> f64 {
    let w = &done.skin.weights;
    w.iter().flatten().filter(|e| e.0 == j).map(|e| e.1).sum()
}

fn attach(mesh: &Path, skeleton: &Path, file_deform: bool) -> Attached {
    let req = AttachRequest::from_file_with(mesh, skeleton, file_deform).expect("read skeleton");
    Pipeline::new(RigConfig::default())
        .attach(&req, &NoProgress)
        .expect("attach")
}

fn goal_warned(done: &Attached) -> bool {
    done.rig
        .warnings
        .iter()
        .any(|w| w.contains("never uses") && w.contains("spine_ik_goal"))
}

/// A corpus truth JSON of `joints()` with `skin`.
fn truth_json(skin: &SkinTable) -> String {
    let js = joints();
    let rows = |f: &dyn Fn(&(u32, f64)) -> String| {
        skin.iter()
            .map(|r| format!("[{}]", r.iter().map(f).collect::<Vec<_>>().join(",")))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        r#"{{"joint_names":[{}],"parents":[{}],"joint_positions":[{}],"skin_joints":[{}],"skin_weights":[{}]}}"#,
        js.iter()
            .map(|j| format!("\"{}\"", j.name))
            .collect::<Vec<_>>()
            .join(","),
        js.iter()
            .map(|j| j.parent.map_or(-1, |p| p as i64).to_string())
            .collect::<Vec<_>>()
            .join(","),
        js.iter()
            .map(|j| format!("{:?}", j.position))
            .collect::<Vec<_>>()
            .join(","),
        rows(&|e| e.0.to_string()),
        rows(&|e| e.1.to_string()),
    )
}

#[test]
fn joints_the_files_own_skin_never_uses_own_no_vertices() {
    let body = capsule(LEN, R, 16, V3::zeros());
    let n = body.positions.len();
    let dir = std::env::temp_dir().join(format!("geppetto-file-deform-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mesh = dir.join("body.obj");
    write_obj(&body, &mesh).expect("write obj");
    let skin = artist_skin(body.positions.iter().map(|p| p.y));
    let truth = dir.join("body.truth.json");
    std::fs::write(&truth, truth_json(&skin)).expect("write truth");
    // The same rig as a GLB (the artist's file) and as a Geppetto rig.json.
    let rig = Rig {
        mesh: mesh.display().to_string(),
        skeleton: "artist".into(),
        joints: joints(),
        skin: Some(skin),
        vertex_count: n,
        ..Rig::default()
    };
    let out = dir.join("out");
    write_rig(&rig, &body, &out, &[Format::Glb, Format::Json]).expect("write rig");
    let glb = out.join("body.glb");
    let rig_json = out.join("body.rig.json");

    // The failure this guards against: weighting every joint gives the goal a share.
    let every = attach(&mesh, &truth, false);
    assert_valid(&every.skin, n, 4);
    let before = mass(&every, GOAL);
    assert!(before > 1.0, "heat alone gives the goal {before}");
    assert!(!every.rig.joints[GOAL as usize].end && !goal_warned(&every));

    for skeleton in [&truth, &glb] {
        let done = attach(&mesh, skeleton, true);
        assert_valid(&done.skin, n, 4);
        assert_eq!(mass(&done, GOAL), 0.0, "{}", skeleton.display());
        assert!(done.rig.joints[GOAL as usize].end, "{}", skeleton.display());
        assert!(goal_warned(&done), "{:?}", done.rig.warnings);
        // The chain joints keep their vertices: each owns some.
        for j in 0..GOAL {
            assert!(mass(&done, j) > 1.0, "joint {j}");
        }
    }
    // A rig.json's skin is ours: its joints are weighted as the file marks them.
    let ours = attach(&mesh, &rig_json, true);
    assert!(mass(&ours, GOAL) > 1.0 && !goal_warned(&ours));
    let _ = std::fs::remove_dir_all(&dir);
}
