//! The whole embedding stage on a synthetic stick human (no discretization needed): templates land
//! where they should, hints are honoured, orientations are recovered, budgets stop the search.

use geppetto::embed::hints::ResolvedHint;
use geppetto::embed::run_with as embed_with;
use geppetto::embed::synthetic::Capsules;
use geppetto::embed::{EmbedOptions, Orientation, OrientationMode};
use geppetto::geom::{JointId, P3};
use geppetto::skeleton::{load_template, Skeleton};

fn joint(s: &Skeleton, j: &[P3], name: &str) -> P3 {
    j[s.find(name).unwrap_or_else(|| panic!("{name}")).0]
}

fn never() -> bool {
    false
}

#[test]
fn human_lands_on_the_stick_human() {
    let shape = Capsules::human();
    let (g, medial) = shape.discretize(0.02);
    let s = load_template("human").unwrap();
    let e = embed_with(
        &g,
        &shape,
        &medial,
        &s,
        &[],
        &EmbedOptions::default(),
        &never,
    )
    .unwrap();
    assert!(!e.budget_hit && !e.forced, "{:?}", e.warnings);
    let j = &e.joints;
    let lh = joint(&s, j, "RightHand_End");
    let rh = joint(&s, j, "LeftHand_End");
    assert!(lh.x < 0.2 && rh.x > 0.8, "hands {lh} {rh}");
    assert!(joint(&s, j, "RightToe_End").x < 0.5 && joint(&s, j, "LeftToe_End").x > 0.5);
    assert!(joint(&s, j, "RightToe_End").y < 0.15);
    assert!(joint(&s, j, "HeadTop_End").y > 0.82);
    let hips = joint(&s, j, "Hips");
    assert!((hips.y - 0.47).abs() < 0.08, "hips {hips}");
    assert!(joint(&s, j, "RightForeArm").x < 0.35 && joint(&s, j, "RightForeArm").x > 0.17);
    for (k, p) in j.iter().enumerate() {
        let f = geppetto::discretize::Field::eval(&shape, p);
        assert!(f < 0.005, "{} outside: {f}", s.joints[k].name);
    }
    assert!(e.penalty.total > 0.0 && e.penalty.total < 1.0);
    assert!((e.penalty.terms.iter().sum::<f64>() - e.penalty.total).abs() < 1e-9);
}

#[test]
fn auto_orientation_recovers_a_z_up_figure() {
    // Rotate so the figure's up is mesh +Z and its front is mesh -Y (Blender style).
    let o = Orientation::parse("+z,-y").unwrap();
    let c = P3::new(0.5, 0.5, 0.5);
    let shape = Capsules::human().mapped(|p| c + o.unapply(&(p - c)));
    let (g, medial) = shape.discretize(0.02);
    let s = load_template("human").unwrap();
    let opts = EmbedOptions {
        orientation: OrientationMode::Auto,
        ..EmbedOptions::default()
    };
    let e = embed_with(&g, &shape, &medial, &s, &[], &opts, &never).unwrap();
    assert_eq!(e.orientation, o, "chose {}", e.orientation.label());
    let head = joint(&s, &e.joints, "HeadTop_End");
    assert!(head.z > 0.8, "head {head} (mesh frame, +Z up)");
}

#[test]
fn hints_pin_reduced_and_chain_joints() {
    let shape = Capsules::human();
    let (g, medial) = shape.discretize(0.02);
    let s = load_template("human").unwrap();
    let fore = s.find("RightForeArm").unwrap();
    let hand = s.find("RightHand_End").unwrap();
    let hints = vec![
        ResolvedHint {
            joint: fore,
            position: P3::new(0.3, 0.72, 0.5),
            radius: 0.01,
        },
        ResolvedHint {
            joint: hand,
            position: P3::new(0.1, 0.72, 0.5),
            radius: 0.02,
        },
    ];
    let e = embed_with(
        &g,
        &shape,
        &medial,
        &s,
        &hints,
        &EmbedOptions::default(),
        &never,
    )
    .unwrap();
    for h in &hints {
        let d = (e.joints[h.joint.0] - h.position).norm();
        assert!(d <= h.radius + 1e-9, "{:?} is {d} from its hint", h.joint);
    }
    // The hints moved something: without them the hinted joints are elsewhere.
    let free = embed_with(
        &g,
        &shape,
        &medial,
        &s,
        &[],
        &EmbedOptions::default(),
        &never,
    )
    .unwrap();
    let moved = |id: JointId, h: &ResolvedHint| (free.joints[id.0] - h.position).norm() > h.radius;
    assert!(
        hints.iter().any(|h| moved(h.joint, h)),
        "the hinted positions are where the joints go anyway: the test proves nothing"
    );
}

#[test]
fn centaur_on_a_human_stops_within_budget() {
    let shape = Capsules::human();
    let (g, medial) = shape.discretize(0.015);
    let s = load_template("centaur").unwrap();
    let opts = EmbedOptions {
        max_nodes: 2_000,
        work_per_joint_vertex: 200,
        ..EmbedOptions::default()
    };
    let t = std::time::Instant::now();
    let r = embed_with(&g, &shape, &medial, &s, &[], &opts, &never);
    let secs = t.elapsed().as_secs_f64();
    assert!(secs < 5.0, "took {secs} s");
    match r {
        Ok(e) => assert!(
            e.budget_hit || e.forced || e.penalty.total < 1.0,
            "{:?}",
            e.warnings
        ),
        Err(err) => assert!(err.to_string().contains("centaur"), "{err}"),
    }
}
