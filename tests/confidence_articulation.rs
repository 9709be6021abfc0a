//! A rig must bend its body (stop 15, unseen characters): on an unseen low-poly chair and a sitting
//! kitten (one welded shell each) `--skeleton auto` chose a curve skeleton that was `ok` on its
//! geometry, and the skin bound the whole shell to one joint (`rigid_share`). That rig cannot move
//! anything, so it must not be reported `ok` ([`geppetto::confidence::articulation`]). The chair is
//! generated here (an implicit union of boxes, polygonized): no mesh is stored in the repository.
//! At this resolution the curve skeleton reaches the legs and the skin diffuses, so the failure is
//! reproduced by asking the skin to bind every shell rigidly (`rigid_share` 0, what the
//! multi-component method does for its parts).

use std::path::Path;

use geppetto::choose::Template;
use geppetto::config::RigConfig;
use geppetto::demo::polygonize::polygonize;
use geppetto::geom::{Aabb, P3};
use geppetto::mesh::write::write_obj;
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Status;
use geppetto::skin::ShellBinding;

/// Signed distance (exact outside, approximate inside) to the box `[lo, hi]`.
fn sd_box(p: &P3, lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let mut out = 0.0f64;
    let mut inside = f64::NEG_INFINITY;
    for a in 0..3 {
        let c = 0.5 * (lo[a] + hi[a]);
        let h = 0.5 * (hi[a] - lo[a]);
        let d = (p[a] - c).abs() - h;
        out += d.max(0.0).powi(2);
        inside = inside.max(d);
    }
    if out > 0.0 {
        out.sqrt()
    } else {
        inside
    }
}

/// A chair 2 wide and deep: seat 0.2 thick at height 1.8, four 0.2 × 0.2 legs, a back board.
fn chair_sdf(p: &P3) -> f64 {
    let boxes: [([f64; 3], [f64; 3]); 6] = [
        ([-1.0, 1.7, -1.0], [1.0, 1.9, 1.0]),
        ([-1.0, 0.0, -1.0], [-0.8, 1.8, -0.8]),
        ([0.8, 0.0, -1.0], [1.0, 1.8, -0.8]),
        ([-1.0, 0.0, 0.8], [-0.8, 1.8, 1.0]),
        ([0.8, 0.0, 0.8], [1.0, 1.8, 1.0]),
        ([0.8, 1.8, -1.0], [1.0, 3.8, 1.0]),
    ];
    boxes
        .iter()
        .map(|(lo, hi)| sd_box(p, *lo, *hi))
        .fold(f64::INFINITY, f64::min)
}

fn rig_chair(dir: &Path, config: RigConfig) -> RigOutcome {
    let bounds = Aabb {
        min: P3::new(-1.0, 0.0, -1.0),
        max: P3::new(1.0, 3.8, 1.0),
    };
    let mesh = polygonize(chair_sdf, &bounds, 0.05);
    let path = dir.join("chair.obj");
    write_obj(&mesh, &path).expect("writes the chair");
    let req = RigRequest::with_sidecar(&path, Template::Auto).expect("request");
    Pipeline::new(config)
        .rig(&req, &NoProgress)
        .expect("rigs the chair")
}

fn body_is_rigid(out: &RigOutcome) -> bool {
    let skin = out.skin.as_ref().expect("skin");
    assert_eq!(out.prepared.shells.len(), 1, "the chair is one shell");
    skin.shells.iter().any(|b| {
        matches!(
            b,
            ShellBinding::Part { shell: 0, .. } | ShellBinding::Rigid { shell: 0, .. }
        )
    })
}

fn reported(out: &RigOutcome) -> bool {
    out.rig
        .confidence_reasons
        .iter()
        .any(|r| r.contains("moves with one joint"))
}

#[test]
fn a_rig_that_moves_its_body_with_one_joint_is_not_ok() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = RigConfig::default();
    config.skin.rigid_share = 0.0;
    let out = rig_chair(dir.path(), config);
    assert!(out.rig.joints.len() > 2, "a rig with bones");
    assert!(body_is_rigid(&out), "the body follows one joint");
    assert_eq!(out.rig.status, Status::LowConfidence);
    assert!(reported(&out), "{:?}", out.rig.confidence_reasons);
    assert!(out
        .rig
        .templates
        .iter()
        .filter(|t| t.chosen)
        .all(|t| t.status == Some(Status::LowConfidence)));
}

#[test]
fn a_rig_whose_skin_bends_the_body_is_not_flagged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = rig_chair(dir.path(), RigConfig::default());
    assert!(!body_is_rigid(&out), "the skin diffuses over the chair");
    assert!(!reported(&out), "{:?}", out.rig.confidence_reasons);
}
