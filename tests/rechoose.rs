//! Re-choosing the embedding when a structural check fails (issue 12, joints): procedural
//! characters whose construction skeleton is known, with the two held-out failures made
//! synthetic. The arms-into-ears humanoid (cartoon ears, short arms: the template's length veto
//! sends the arm chains elsewhere) and a soldier with a bulky plate on the left shoulder must come
//! out with their arms in the arms, `ok`, and close to the construction skeleton; rig.json says
//! the embedding was re-chosen and why.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use geppetto::confidence::assess;
use geppetto::config::RigConfig;
use geppetto::demo::characters::Variant;
use geppetto::demo::{humanoid_variant, DemoCharacter};
use geppetto::geom::{P3, V3};
use geppetto::measure::joints::measure;
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rechoose::{rechoose, Inputs};
use geppetto::rig::Status;
use geppetto::skeleton::{load_template, Skeleton};

fn write(c: &DemoCharacter, dir: &Path) -> PathBuf {
    let path = dir.join(format!("{}.obj", c.name));
    std::fs::write(&path, geppetto::mesh::write::obj_string(&c.mesh)).expect("write obj");
    path
}

fn rig(path: &Path, skel: &Arc<Skeleton>) -> RigOutcome {
    let mut req = RigRequest::with_sidecar(path, skel.clone()).expect("request");
    req.skin = false;
    Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("rig")
}

/// CD-J2J (% of the largest extent) of joints `pred` (mesh frame) against the construction skeleton.
fn cd_j2j(pred: &[P3], c: &DemoCharacter, skel: &Skeleton, extent: f64) -> f64 {
    let parents: Vec<Option<usize>> = skel.joints.iter().map(|j| j.parent.map(|p| p.0)).collect();
    let truth: Vec<P3> = skel
        .joints
        .iter()
        .map(|j| c.joint(&j.name).expect("construction joint"))
        .collect();
    measure((pred, &parents), (&truth, &parents), extent).cd_j2j
}

/// CD-J2J of the rig, and of the first choice (the search alone, without the re-choice).
fn before_after(out: &RigOutcome, c: &DemoCharacter, skel: &Skeleton) -> (f64, f64) {
    let disc = out.discretization.as_ref().expect("embedding path");
    let first = geppetto::embed::embed(
        disc,
        skel,
        &[],
        &RigConfig::default().embed_options(),
        &NoProgress,
    )
    .expect("first choice");
    let norm = &out.prepared.normalization;
    let first: Vec<P3> = first.joints.iter().map(|p| norm.to_mesh(p)).collect();
    let now: Vec<P3> = out
        .rig
        .joints
        .iter()
        .map(|j| P3::from(j.position))
        .collect();
    let extent = out.rig.max_extent();
    (
        cd_j2j(&first, c, skel, extent),
        cd_j2j(&now, c, skel, extent),
    )
}

/// The rig is `ok`, re-chosen (the record and the warnings say so), every arm joint is within 8%
/// of the height of its construction position, and CD-J2J is below `bound`.
fn assert_rechosen_arms(c: &DemoCharacter, bound: f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(c, dir.path());
    let skel = Arc::new(load_template("human").expect("built-in"));
    let out = rig(&path, &skel);
    let (before, after) = before_after(&out, c, &skel);
    println!(
        "{}: {:?} CD-J2J first choice {before:.2}% -> {after:.2}%; {:?}; rechoose {:?} ms",
        c.name,
        out.rig.status,
        out.rig.rechoice,
        out.rig.timings_ms.get("rechoose")
    );
    let record = out.rig.rechoice.as_ref().expect("a re-choice record");
    assert!(record.kept, "{}", record.reason);
    assert!(
        record.reason.starts_with("re-chosen because"),
        "{}",
        record.reason
    );
    assert!(out.rig.warnings.contains(&record.reason));
    assert_eq!(
        out.rig.status,
        Status::Ok,
        "{:?}",
        out.rig.confidence_reasons
    );
    let height = c.mesh.aabb().max.y - c.mesh.aabb().min.y;
    for side in ["Left", "Right"] {
        for j in ["ForeArm", "Hand", "Hand_End"] {
            let name = format!("{side}{j}");
            let got = out
                .rig
                .joints
                .iter()
                .find(|x| x.name == name)
                .expect("joint");
            let (got, want) = (P3::from(got.position), c.joint(&name).expect("truth"));
            assert!(
                (got - want).norm() < 0.08 * height,
                "{name} at {got}, built at {want}"
            );
        }
    }
    assert!(after < bound, "CD-J2J {after:.2}% (bound {bound}%)");
    assert!(after < before, "{after:.2}% vs first choice {before:.2}%");
}

#[test]
fn arms_into_ears_are_re_chosen_into_the_arms() {
    // Measured 2.3% after (6.2% before): bound 3%, the 2.5% a wrist pin reaches plus slack.
    assert_rechosen_arms(&common::eared_humanoid(), 3.0);
}

/// A soldier with a bulky plate on the left shoulder and arms held down: the held-out failure
/// left the left arm chain stopped in the shoulder plate. The search finds the arm on this
/// synthetic soldier, so the failure is built by hand (the chain's joints moved into the plate,
/// its discrete end on the plate's sphere) and handed to the re-choice, as the pipeline does.
#[test]
fn an_arm_stopping_at_a_shoulder_plate_is_re_chosen_into_the_arm() {
    let pad = V3::new(0.2, 0.1, 0.14);
    let c = humanoid_variant(
        3,
        &Variant {
            arm_dir: Some(V3::new(-0.5, -1.0, 0.05)),
            shoulder_pad: Some(pad),
            ..Variant::default()
        },
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(&c, dir.path());
    let skel = Arc::new(load_template("human").expect("built-in"));
    let good = rig(&path, &skel);
    assert_eq!(
        good.rig.status,
        Status::Ok,
        "{:?}",
        good.rig.confidence_reasons
    );
    let disc = good.discretization.clone().expect("embedding path");
    let norm = &good.prepared.normalization;
    // The chain stops at the shoulder: forearm, hand and end in the plate beside it.
    let upper = c.joint("LeftArm").expect("shoulder");
    let plate = upper + V3::new(-0.6 * pad.x, 0.5 * pad.y, 0.0);
    let mut bad = good.embedding.clone();
    for (name, t) in [
        ("LeftForeArm", 0.35),
        ("LeftHand", 0.7),
        ("LeftHand_End", 1.0),
    ] {
        let j = skel.find(name).expect(name);
        bad.joints[j.0] = norm.to_normalized(&(upper + (plate - upper) * t));
    }
    let red = geppetto::embed::reduced::Reduced::new(&skel);
    let end = skel.find("LeftHand_End").expect("end");
    let k = red.index_of(end).expect("reduced end");
    let at = norm.to_normalized(&plate);
    let nearest = (0..disc.graph.len())
        .min_by(|a, b| {
            let d = |i: &usize| (disc.graph.spheres[*i].center - at).norm();
            d(a).total_cmp(&d(b))
        })
        .expect("spheres");
    bad.discrete[k] = geppetto::geom::NodeId(nearest as u32);
    let conf = assess(&good.prepared, &disc, &skel, &bad);
    println!("stopped at the shoulder: {:?}", conf.reasons);
    assert_ne!(conf.status, Status::Ok, "the stopped chain is flagged");
    let opts = RigConfig::default().embed_options();
    let inp = Inputs {
        mesh: &good.prepared,
        disc: &disc,
        skel: &skel,
        hints: &[],
        opts: &opts,
    };
    let out = rechoose(&inp, &bad, &conf, &NoProgress)
        .expect("not cancelled")
        .expect("a structural check failed");
    println!("{:?} in {:.0} ms", out.record, out.ms);
    assert!(out.record.kept, "{}", out.record.reason);
    assert_eq!(out.record.chains, ["LeftHand_End"]);
    let (emb, new_conf) = out.replacement.expect("re-chosen");
    assert_eq!(new_conf.status, Status::Ok, "{:?}", new_conf.reasons);
    let to_mesh = |q: &[P3]| q.iter().map(|p| norm.to_mesh(p)).collect::<Vec<_>>();
    let extent = good.rig.max_extent();
    let before = cd_j2j(&to_mesh(&bad.joints), &c, &skel, extent);
    let after = cd_j2j(&to_mesh(&emb.joints), &c, &skel, extent);
    println!("CD-J2J stopped at the shoulder {before:.2}% -> re-chosen {after:.2}%");
    let height = c.mesh.aabb().max.y - c.mesh.aabb().min.y;
    for name in ["LeftForeArm", "LeftHand", "LeftHand_End"] {
        let got = norm.to_mesh(&emb.joints[skel.find(name).expect(name).0]);
        let want = c.joint(name).expect("truth");
        assert!(
            (got - want).norm() < 0.08 * height,
            "{name} at {got}, built at {want}"
        );
    }
    // Measured 2.6% (the search's own rig of this soldier: 2.4%); 3.4% stopped at the shoulder.
    assert!(after < 3.0, "CD-J2J {after:.2}%");
    assert!(after < before, "{after:.2}% vs {before:.2}%");
}
