//! Hint re-runs keep the mesh's heat system (matrix + AMD ordering) beside the cached
//! discretization (issue 16, watch latency): the re-runs' skin weights must be the cold rig's,
//! bit for bit, whether the kept system is being filled (first re-run) or reused (later ones).

use std::sync::Arc;

use geppetto::config::RigConfig;
use geppetto::demo::characters::Variant;
use geppetto::demo::humanoid_variant;
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::skeleton::load_template;

fn weight_bits(out: &RigOutcome) -> Vec<Vec<(u32, u64)>> {
    let skin = out.skin.as_ref().expect("skin requested");
    skin.weights
        .iter()
        .map(|row| row.iter().map(|&(j, w)| (j, w.to_bits())).collect())
        .collect()
}

/// A built-in humanoid written to a temporary `hero.obj`, and its request with the human
/// template (the folder lives as long as the returned guard).
fn hero_request() -> (tempfile::TempDir, RigRequest) {
    let c = humanoid_variant(3, &Variant::default());
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("hero.obj");
    std::fs::write(&path, geppetto::mesh::write::obj_string(&c.mesh)).expect("write obj");
    let skel = Arc::new(load_template("human").expect("built-in"));
    let req = RigRequest::with_sidecar(&path, skel).expect("request");
    (dir, req)
}

#[test]
fn re_runs_give_the_cold_rigs_weights_bit_for_bit() {
    let (_dir, req) = hero_request();
    let pipeline = Pipeline::new(RigConfig::default());
    let cold = pipeline.rig(&req, &NoProgress).expect("cold rig");
    assert!(!cold.reused_discretization);
    let first = pipeline.rig(&req, &NoProgress).expect("first re-run");
    let second = pipeline.rig(&req, &NoProgress).expect("second re-run");
    assert!(first.reused_discretization && second.reused_discretization);
    let symbolic = |o: &RigOutcome| o.skin.as_ref().map(|s| s.stats.symbolic_ms);
    // The second re-run took the ordering the first one kept (no symbolic analysis).
    assert!(
        symbolic(&first).is_some_and(|ms| ms > 0.0),
        "{:?}",
        symbolic(&first)
    );
    assert_eq!(symbolic(&second), Some(0.0));
    let want = weight_bits(&cold);
    assert!(!want.is_empty());
    assert_eq!(weight_bits(&first), want);
    assert_eq!(weight_bits(&second), want);
    // And a fresh pipeline (no cache at all) gives the same weights too.
    let fresh = Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("fresh rig");
    assert_eq!(weight_bits(&fresh), want);
}

/// `geppetto rig`'s pipeline ([`Pipeline::one_shot`]) keeps nothing between rigs: rigging the
/// same mesh twice discretizes it twice (no discretization outlives its rig in a batch), and the
/// rig is the caching pipeline's, joints and weights bit for bit.
#[test]
fn a_one_shot_pipeline_keeps_nothing_and_rigs_the_same() {
    let (_dir, req) = hero_request();
    let once = Pipeline::one_shot(RigConfig::default());
    let a = once.rig(&req, &NoProgress).expect("first rig");
    let b = once.rig(&req, &NoProgress).expect("second rig");
    assert!(!a.reused_discretization && !b.reused_discretization);
    let kept = Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("caching rig");
    let joints = |o: &RigOutcome| {
        o.rig
            .joints
            .iter()
            .map(|j| j.position.map(f64::to_bits))
            .collect::<Vec<_>>()
    };
    assert_eq!(joints(&a), joints(&kept));
    assert_eq!(joints(&b), joints(&kept));
    assert_eq!(weight_bits(&a), weight_bits(&kept));
    assert_eq!(weight_bits(&b), weight_bits(&kept));
}
