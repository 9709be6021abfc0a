//! Re-choosing the embedding when a structural check fails (issue 12, joints): procedural
//! characters whose construction skeleton is known, with the two held-out failures made
//! synthetic. The arms-into-ears humanoid (cartoon ears, short arms: the template's length veto
//! sends the arm chains elsewhere) and a soldier with a bulky plate on the right shoulder must come
//! out with their arms in the arms, `ok`, and close to the construction skeleton; rig.json says
//! the embedding was re-chosen and why.

mod common;

use std::path::Path;
use std::sync::Arc;

use geppetto::confidence::assess;
use geppetto::config::RigConfig;
use geppetto::demo::characters::Variant;
use geppetto::demo::{humanoid_variant, DemoCharacter};
use geppetto::geom::{P3, V3};
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rechoose::{rechoose, Inputs};
use geppetto::rig::Status;
use geppetto::skeleton::{load_template, Skeleton};

fn rig(path: &Path, skel: &Arc<Skeleton>) -> RigOutcome {
    let mut req = RigRequest::with_sidecar(path, skel.clone()).expect("request");
    req.skin = false;
    Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("rig")
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
        common::cd_to_construction(&first, extent, c, skel),
        common::cd_to_construction(&now, extent, c, skel),
    )
}

/// The rig is `ok`, re-chosen (the record and the warnings say so), every arm joint is within 8%
/// of the height of its construction position, and CD-J2J is below `bound`.
fn assert_rechosen_arms(c: &DemoCharacter, bound: f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = common::write_obj(c, dir.path());
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
    for side in ["Right", "Left"] {
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

/// The failure built by hand: `good`'s embedding with the named joints moved (mesh frame) and
/// each moved chain end's discrete vertex snapped to it, judged and handed to the re-choice as the
/// pipeline does. Asserts the re-choice is kept, `ok`, moves `chains`, and brings every moved joint
/// within 8% of the height of its construction position; returns CD-J2J before and after.
fn rechoose_hand_built(
    c: &DemoCharacter,
    skel: &Skeleton,
    good: &RigOutcome,
    moves: &[(&str, P3)],
    chains: &[&str],
) -> (f64, f64) {
    let disc = good.discretization.clone().expect("embedding path");
    let norm = &good.prepared.normalization;
    let red = geppetto::embed::reduced::Reduced::new(skel);
    let mut bad = good.embedding.clone();
    for (name, p) in moves {
        let j = skel.find(name).expect(name);
        bad.joints[j.0] = norm.to_normalized(p);
        if let Some(k) = red.index_of(j) {
            let at = norm.to_normalized(p);
            let d = |i: &usize| (disc.graph.spheres[*i].center - at).norm();
            let near = (0..disc.graph.len()).min_by(|a, b| d(a).total_cmp(&d(b)));
            bad.discrete[k] = geppetto::geom::NodeId(near.expect("spheres") as u32);
        }
    }
    let conf = assess(&good.prepared, &disc, skel, &bad);
    println!("built by hand: {:?}", conf.reasons);
    assert_ne!(conf.status, Status::Ok, "the hand-built failure is flagged");
    let opts = RigConfig::default().embed_options();
    let inp = Inputs {
        mesh: &good.prepared,
        disc: &disc,
        skel,
        hints: &[],
        opts: &opts,
    };
    let out = rechoose(&inp, &bad, &conf, &NoProgress)
        .expect("not cancelled")
        .expect("a structural check failed");
    println!("{:?} in {:.0} ms", out.record, out.ms);
    assert!(out.record.kept, "{}", out.record.reason);
    assert_eq!(out.record.chains, chains);
    let (emb, new_conf) = out.replacement.expect("re-chosen");
    assert_eq!(new_conf.status, Status::Ok, "{:?}", new_conf.reasons);
    let to_mesh = |q: &[P3]| q.iter().map(|p| norm.to_mesh(p)).collect::<Vec<_>>();
    let extent = good.rig.max_extent();
    let height = c.mesh.aabb().max.y - c.mesh.aabb().min.y;
    for (name, _) in moves {
        let got = norm.to_mesh(&emb.joints[skel.find(name).expect(name).0]);
        let want = c.joint(name).expect("truth");
        assert!(
            (got - want).norm() < 0.08 * height,
            "{name} at {got}, built at {want}"
        );
    }
    (
        common::cd_to_construction(&to_mesh(&bad.joints), extent, c, skel),
        common::cd_to_construction(&to_mesh(&emb.joints), extent, c, skel),
    )
}

/// The human template's rig of `c` (no skin), which must be `ok`: the good rig a hand-built
/// failure is made from.
fn rig_ok(c: &DemoCharacter) -> (Arc<Skeleton>, RigOutcome) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = common::write_obj(c, dir.path());
    let skel = Arc::new(load_template("human").expect("built-in"));
    let good = rig(&path, &skel);
    assert_eq!(
        good.rig.status,
        Status::Ok,
        "{:?}",
        good.rig.confidence_reasons
    );
    (skel, good)
}

/// The elephant's failure itself: both arm chains run from the shoulders up into the flat ears
/// (the search on this humanoid sends them down the legs instead, see above), built by hand.
#[test]
fn arm_chains_run_into_the_ears_are_re_chosen_into_the_arms() {
    let c = common::eared_humanoid();
    let (skel, good) = rig_ok(&c);
    let moves: Vec<(String, P3)> = ["Right", "Left"]
        .iter()
        .flat_map(|side| common::arm_into_ear(&c, side))
        .collect();
    let moves: Vec<(&str, P3)> = moves.iter().map(|(n, p)| (n.as_str(), *p)).collect();
    let (before, after) =
        rechoose_hand_built(&c, &skel, &good, &moves, &["RightHand_End", "LeftHand_End"]);
    println!("CD-J2J arms in the ears {before:.2}% -> re-chosen {after:.2}%");
    assert!(after < 3.0, "CD-J2J {after:.2}%");
    assert!(after < before, "{after:.2}% vs {before:.2}%");
}

/// A soldier with a bulky plate on the right shoulder and arms held down: the held-out failure
/// left the right arm chain stopped in the shoulder plate. The search finds the arm on this
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
    let (skel, good) = rig_ok(&c);
    // The chain stops at the shoulder: forearm, hand and end in the plate beside it.
    let upper = c.joint("RightArm").expect("shoulder");
    let plate = upper + V3::new(-0.6 * pad.x, 0.5 * pad.y, 0.0);
    let moves: Vec<(&str, P3)> = [
        ("RightForeArm", 0.35),
        ("RightHand", 0.7),
        ("RightHand_End", 1.0),
    ]
    .iter()
    .map(|(n, t)| (*n, common::along(upper, plate, *t)))
    .collect();
    let (before, after) = rechoose_hand_built(&c, &skel, &good, &moves, &["RightHand_End"]);
    println!("CD-J2J stopped at the shoulder {before:.2}% -> re-chosen {after:.2}%");
    // Measured 2.6% (the search's own rig of this soldier: 2.4%); 3.4% stopped at the shoulder.
    assert!(after < 3.0, "CD-J2J {after:.2}%");
    assert!(after < before, "{after:.2}% vs {before:.2}%");
}
