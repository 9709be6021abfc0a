//! The `auto` competition between templates and the curve skeleton (issue 10) on corpus meshes:
//! creatures no template fits (a hand, an octopus) get the curve skeleton with a plain-words note;
//! a biped keeps its template rig. Plus skinning sanity on a curve rig.

mod common;

use std::path::Path;

use geppetto::choose::Template;
use geppetto::config::RigConfig;
use geppetto::curveskel::{CurveMode, METHOD_NAME};
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::skin::pose::{pose_mesh, Pose};

fn rig(path: &Path, skeleton: Template) -> RigOutcome {
    let req = RigRequest::with_sidecar(path, skeleton).expect("request");
    Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The plain-words note rig.json's warnings carry when the curve skeleton wins under `auto`.
fn curve_note(out: &RigOutcome) -> Option<&String> {
    out.rig
        .warnings
        .iter()
        .find(|w| w.starts_with("no template") && w.contains("curve skeleton"))
}

fn assert_curve_wins(name: &str) {
    let Some(path) = common::corpus_mesh(name) else {
        return;
    };
    let out = rig(&path, Template::Auto);
    assert_eq!(
        out.rig.method, METHOD_NAME,
        "{name}: auto kept a template ({}); trials: {:?}",
        out.skeleton.name, out.rig.templates
    );
    assert!(out.rig.curve.is_some(), "{name}: no curve report");
    assert!(
        curve_note(&out).is_some(),
        "{name}: no plain-words note in {:?}",
        out.rig.warnings
    );
    let chosen: Vec<_> = out.rig.templates.iter().filter(|t| t.chosen).collect();
    assert_eq!(chosen.len(), 1, "{name}: one chosen trial");
    assert_eq!(
        chosen[0].template, METHOD_NAME,
        "{name}: the curve trial is chosen"
    );
}

#[test]
fn auto_gives_the_hand_a_curve_skeleton() {
    assert_curve_wins("hand_tet");
}

#[test]
fn auto_gives_the_octopus_a_curve_skeleton() {
    assert_curve_wins("octopus");
}

#[test]
fn auto_keeps_the_template_for_a_biped() {
    let Some(path) = common::corpus_mesh("sveta") else {
        return;
    };
    let out = rig(&path, Template::Auto);
    assert_eq!(
        out.rig.method,
        geppetto::rig::METHOD_EMBED,
        "sveta: a biped lost its template; warnings {:?}",
        out.rig.warnings
    );
    assert!(
        out.rig.curve.is_none(),
        "sveta: a curve report on a template rig"
    );
    assert!(
        curve_note(&out).is_none(),
        "sveta: curve note on a template rig"
    );
}

/// Skin weights of a curve rig: every input vertex weighted, weights positive, summing to 1, on
/// existing joints; the bind pose (identity rotations) reproduces the mesh.
#[test]
fn curve_rig_skinning_is_sane() {
    let Some(path) = common::corpus_mesh("hand_tet") else {
        return;
    };
    let out = rig(&path, Template::Curve(CurveMode::Robust));
    assert_eq!(out.rig.method, METHOD_NAME);
    let skin = out.skin.as_ref().expect("skin requested");
    let input = &out.prepared.input;
    assert_eq!(
        skin.weights.len(),
        input.positions.len(),
        "one list per input vertex"
    );
    let joints = out.rig.joints.len();
    for (v, list) in skin.weights.iter().enumerate() {
        assert!(!list.is_empty(), "vertex {v} has no weight");
        let sum: f64 = list.iter().map(|(_, w)| w).sum();
        assert!((sum - 1.0).abs() < 1e-6, "vertex {v}: weights sum to {sum}");
        for &(j, w) in list {
            assert!((j as usize) < joints && w > 0.0, "vertex {v}: ({j}, {w})");
        }
    }
    let posed = pose_mesh(
        &input.positions,
        &out.rig.joints,
        &skin.weights,
        &Pose::identity(joints),
    );
    let tol = 1e-9 * out.rig.max_extent().max(1e-12);
    for (v, (a, b)) in input.positions.iter().zip(&posed).enumerate() {
        assert!(
            (a - b).norm() <= tol,
            "vertex {v} moved in the bind pose: {a} -> {b}"
        );
    }
}

/// The TUI's `t` key writes `skeleton: curve` to the sidecar: it must survive a save and a load
/// and select the curve method (robust mode) when the pipeline reads it.
#[test]
fn sidecar_round_trips_skeleton_curve() {
    use geppetto::embed::hints::{sidecar_path, Hints};
    let dir = tempfile::tempdir().expect("temp dir");
    let mesh = dir.path().join("creature.obj");
    let hints = Hints {
        skeleton: Some(METHOD_NAME.to_string()),
        ..Hints::default()
    };
    hints.save(&sidecar_path(&mesh)).expect("save sidecar");
    let text = std::fs::read_to_string(sidecar_path(&mesh)).expect("read sidecar");
    assert!(text.contains("skeleton: curve"), "sidecar text:\n{text}");
    let back = Hints::load_sidecar(&mesh).expect("load").expect("present");
    assert_eq!(back, hints);
    let template = Template::parse(back.skeleton.as_deref().unwrap()).expect("parses");
    assert!(matches!(template, Template::Curve(CurveMode::Robust)));
}
