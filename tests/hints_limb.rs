//! Hints fix limbs, and wrong rigs are not `ok` (issue 15 §4–§5), on procedural characters whose
//! construction skeleton is known: a humanoid with huge flat ears hanging to its shoulders and short
//! drooping arms (the arms-into-ears failure of a cartoon elephant), and a big-headed humanoid.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use geppetto::config::RigConfig;
use geppetto::demo::characters::Variant;
use geppetto::demo::{humanoid_variant, DemoCharacter};
use geppetto::embed::hints::Hints;
use geppetto::geom::{P3, V3};
use geppetto::measure::joints::measure;
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Status;
use geppetto::skeleton::{load_template, Skeleton};

/// The arms-into-ears character: flat ears 0.44 m wide, 0.52 m tall, 5 cm thick, hanging from the
/// head to the shoulders; half-length arms held forward and down, in front of the body.
fn eared() -> DemoCharacter {
    humanoid_variant(
        3,
        &Variant {
            arm_scale: 0.3,
            arm_dir: Some(V3::new(-0.25, -0.5, 0.83)),
            ears: Some(V3::new(0.22, 0.26, 0.025)),
            ..Variant::default()
        },
    )
}

fn write(c: &DemoCharacter, dir: &Path) -> PathBuf {
    let path = dir.join(format!("{}.obj", c.name));
    std::fs::write(&path, geppetto::mesh::write::obj_string(&c.mesh)).expect("write obj");
    path
}

fn rig(pipeline: &Pipeline, path: &Path, skel: &Arc<Skeleton>, hints: Option<Hints>) -> RigOutcome {
    let mut req = RigRequest::with_sidecar(path, skel.clone()).expect("request");
    req.skin = false;
    req.hints = hints.map(|h| (h, path.with_extension("hints.yaml")));
    pipeline.rig(&req, &NoProgress).expect("rig")
}

/// CD-J2J (% of the largest extent) of the rig against the character's construction skeleton.
fn cd_j2j(out: &RigOutcome, c: &DemoCharacter, skel: &Skeleton) -> f64 {
    let pred: Vec<P3> = out.rig.joints.iter().map(|j| P3::from(j.position)).collect();
    let parents: Vec<Option<usize>> = skel.joints.iter().map(|j| j.parent.map(|p| p.0)).collect();
    let truth: Vec<P3> = skel
        .joints
        .iter()
        .map(|j| c.joint(&j.name).expect("construction joint"))
        .collect();
    measure((&pred, &parents), (&truth, &parents), out.rig.max_extent()).cd_j2j
}

fn joint(out: &RigOutcome, name: &str) -> P3 {
    let j = out.rig.joints.iter().find(|j| j.name == name).expect(name);
    P3::from(j.position)
}

#[test]
fn ear_arms_are_not_ok_and_wrist_pins_fix_the_whole_arm() {
    let c = eared();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(&c, dir.path());
    let skel = Arc::new(load_template("human").expect("built-in"));
    let pipeline = Pipeline::new(RigConfig::default());
    let free = rig(&pipeline, &path, &skel, None);
    let free_cd = cd_j2j(&free, &c, &skel);
    println!(
        "unhinted: {:?} CD-J2J {free_cd:.2}% penalty {:.3} {:?}",
        free.rig.status, free.rig.penalty.total, free.rig.confidence_reasons
    );
    for side in ["Left", "Right"] {
        let name = format!("{side}Hand_End");
        println!("  {name} at {} (truth {})", joint(&free, &name), c.joint(&name).unwrap());
    }
    assert_ne!(free.rig.status, Status::Ok, "arms in the ears rigged as ok");

    let mut hints = Hints::default();
    for side in ["Left", "Right"] {
        let w = c.joint(&format!("{side}Hand")).expect("wrist");
        hints.pin(&format!("{side}Hand"), [w.x, w.y, w.z], None);
    }
    let pinned = rig(&pipeline, &path, &skel, Some(hints));
    let pinned_cd = cd_j2j(&pinned, &c, &skel);
    println!(
        "pinned at the wrists: {:?} CD-J2J {pinned_cd:.2}% penalty {:.3} {:?}",
        pinned.rig.status, pinned.rig.penalty.total, pinned.rig.confidence_reasons
    );
    let height = c.mesh.aabb().max.y - c.mesh.aabb().min.y;
    for side in ["Left", "Right"] {
        for j in ["Hand", "Hand_End"] {
            let name = format!("{side}{j}");
            let (got, want) = (joint(&pinned, &name), c.joint(&name).unwrap());
            println!("  {name} at {got} (truth {want})");
            // The whole arm follows the pin, the chain's end included: every arm joint is within
            // 8% of the height of its construction position (a forearm is ~13%).
            assert!(
                (got - want).norm() < 0.08 * height,
                "{name} at {got}, built at {want}"
            );
        }
    }
    assert!(pinned_cd < 2.5, "CD-J2J {pinned_cd:.2}% after pinning");
    assert!(pinned_cd < 0.6 * free_cd, "{pinned_cd:.2} vs {free_cd:.2}");
    assert_eq!(pinned.rig.status, Status::Ok, "{:?}", pinned.rig.confidence_reasons);
}
