//! Limbs thinner than the sampling tolerance allows. Medial samples shallower than 2τ are dropped
//! (Baran & Popović 2007 §3.1), so at the default τ a limb thinner than 1.3 % of the model's largest
//! side holds no sphere and the arm chains cannot enter it. Reproduces a held-out character (a
//! T-posed woman as wide as she is tall, low-poly forearms about 1 % of her size thick): both arm
//! chains stopped near the elbows, `low_confidence`, CD-J2J 8.5 %; discretized again with τ
//! halved the rig passes every check, 3.5 %. Here: the demo humanoid in a T-pose with arms a
//! fifth of their usual thickness, rigged with the defaults (`--skeleton auto`).

mod common;

use geppetto::demo::characters::Variant;
use geppetto::geom::V3;
use geppetto::rig::Status;

/// The thin-armed T-posed demo humanoid (module docs), its construction and its OBJ in `dir`.
fn thin_armed(dir: &std::path::Path) -> (geppetto::demo::DemoCharacter, std::path::PathBuf) {
    let var = Variant {
        arm_thickness: 0.18,
        arm_dir: Some(V3::new(-1.0, 0.0, 0.0)),
        ..Default::default()
    };
    // 1 cm grid: the thin arms (about 1.6 cm across) keep their interior when polygonized.
    let c = geppetto::demo::humanoid_variant_at(2, &var, 0.01);
    let mesh = common::write_obj(&c, dir);
    (c, mesh)
}

#[test]
fn thin_arms_get_their_chains_from_a_finer_discretization() {
    let dir = tempfile::tempdir().unwrap();
    let (c, mesh) = thin_armed(dir.path());
    let rig = common::rig_cli(
        &mesh,
        &dir.path().join("out"),
        &["--format", "json", "--no-skin"],
    );
    assert_eq!(
        rig.status,
        Status::Ok,
        "reasons: {:?}",
        rig.confidence_reasons
    );
    assert!(
        rig.warnings.iter().any(|w| w.contains("tau halved")),
        "the rig says it was discretized again: {:?}",
        rig.warnings
    );
    // Each hand chain reaches its hand: the end at least three quarters of the way out to the
    // construction's fingertip (at the default τ alone the human faced sideways, penalty 0.401,
    // both hand ends beside the hips).
    for side in ["Left", "Right"] {
        let name = format!("{side}Hand_End");
        let tip = c.joint(&name).expect("construction tip");
        let got = rig
            .joints
            .iter()
            .find(|j| j.name == name)
            .expect("hand end joint");
        let reach = got.position[0] / tip.x;
        assert!(reach > 0.75, "{name} reaches {reach:.2} of the arm span");
    }
}

/// Counts [`Progress::retry`] calls: the watcher shows the finer retry from them.
#[derive(Default)]
struct Retries(std::sync::atomic::AtomicUsize);

impl geppetto::progress::Progress for Retries {
    fn retry(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The finer discretization is cached beside the first: a second rig of the same mesh on the same
/// pipeline (a watcher's hint re-run) repeats only the search, and gets the same rig. Each rig
/// reports its retry once (the watch UI showed "embed 0%" through seconds of it).
#[test]
fn a_rerun_reuses_the_finer_discretization() {
    use geppetto::choose::Template;
    use geppetto::config::RigConfig;
    use geppetto::pipeline::{Pipeline, RigRequest};

    let dir = tempfile::tempdir().unwrap();
    let (_, mesh) = thin_armed(dir.path());
    let mut req = RigRequest::with_sidecar(&mesh, Template::Auto).expect("request");
    req.skin = false;
    let pipeline = Pipeline::new(RigConfig::default());
    let (p1, p2) = (Retries::default(), Retries::default());
    let first = pipeline.rig(&req, &p1).expect("first rig");
    let again = pipeline.rig(&req, &p2).expect("second rig");
    assert_eq!(
        (p1.0.into_inner(), p2.0.into_inner()),
        (1, 1),
        "retries reported"
    );
    let t = |o: &geppetto::pipeline::RigOutcome, k: &str| o.rig.timings_ms.contains_key(k);
    assert!(t(&first, "finer") && t(&first, "finer_discretize"));
    assert!(
        t(&again, "finer") && !t(&again, "finer_discretize"),
        "the re-run discretized again: {:?}",
        again.rig.timings_ms
    );
    assert_eq!(first.rig.status, Status::Ok);
    let joints = |o: &geppetto::pipeline::RigOutcome| {
        o.rig
            .joints
            .iter()
            .map(|j| (j.name.clone(), j.position))
            .collect::<Vec<_>>()
    };
    assert_eq!(joints(&first), joints(&again));
}
