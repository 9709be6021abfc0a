//! Issue 12 §2: a leaf joint just outside the skin (an artist's mouth corner on the cheek, a
//! finger tip past a thin finger) has an empty virtual segment and a point bone no vertex can see
//! through the inside, so heat diffusion gave it exactly zero weight and a warning, while the
//! artist weights every such joint (bench/results.md "Skin weights, round 9"). It now adopts the
//! vertices relatively nearest its bone as any orphan joint does (`skin::heat::adopt_orphans`),
//! without the sight test: it carries weight there, no warning, the weights stay a partition of
//! unity and the rest of the body keeps its owners.

mod skin_common;

use geppetto::geom::{P3, V3};
use skin_common::{assert_valid, capsule, capsule_sdf, prepare, run};

const LEN: f64 = 3.0;
const R: f64 = 0.4;

#[test]
fn a_leaf_just_outside_the_skin_still_owns_the_vertices_near_it() {
    let j = skin_common::joint;
    let joints = vec![
        j("hips", None, [0.0, 0.3, 0.0]),
        j("chest", Some(0), [0.0, 2.4, 0.0]),
        j("corner", Some(1), [R + 0.05, 2.7, 0.0]), // 0.05 outside the side of the body
    ];
    let body = capsule(LEN, R, 16, V3::zeros());
    let mesh = prepare(body.clone(), None);
    let skin = run(&mesh, |p: &P3| capsule_sdf(p, LEN, R, V3::zeros()), &joints);
    assert_valid(&skin, body.positions.len(), 3);
    let unseen = skin
        .warnings
        .iter()
        .any(|w| w.contains("no vertex can see"));
    assert!(!unseen, "{:?}", skin.warnings);
    let corner: f64 = skin
        .weights
        .iter()
        .flatten()
        .filter(|e| e.0 == 2)
        .map(|e| e.1)
        .sum();
    assert!(corner > 0.5, "the corner carries {corner}");
    // Its weight is highest beside it.
    let w2 = |row: &Vec<(u32, f64)>| row.iter().find(|e| e.0 == 2).map_or(0.0, |e| e.1);
    let (top, _) = body
        .positions
        .iter()
        .zip(&skin.weights)
        .max_by(|a, b| w2(a.1).total_cmp(&w2(b.1)))
        .expect("vertices");
    assert!((top - P3::new(R, 2.7, 0.0)).norm() < 0.3, "{top:?}");
    // The bottom still follows the hips.
    let bottom = body
        .positions
        .iter()
        .zip(&skin.weights)
        .filter(|(p, _)| p.y < 0.1);
    assert!(bottom.into_iter().all(|(_, row)| row[0].0 == 0));
}

/// A leaf a little outside the skin where its limb goes on past it (a low-poly arm whose hand is
/// thinner than the forearm, the hand joint on the forearm's line, just off the hand's skin): the
/// leaf's virtual segment starts at the nearest inside point and runs on to the end of the limb,
/// so the hand owns what lies beyond its joint. Before, the segment was empty (the march starts
/// outside) and the hand's end followed the forearm.
#[test]
fn a_leaf_just_off_a_thinner_hand_still_owns_the_hand() {
    use geppetto::skin::bones::bones;
    // A flat limb along +x: half-thickness 0.1 (forearm) up to x = 0.3, 0.08 (hand) beyond, to
    // x = 1; normalized units.
    let sdf = |p: &P3| {
        let h = if p.x < 0.3 { 0.1 } else { 0.08 };
        (p.z.abs() - h)
            .max(p.y.abs() - 0.3)
            .max(p.x - 1.0)
            .max(-p.x - 1.0)
    };
    let joints = vec![
        (P3::new(0.0, 0.0, 0.085), None, false),    // forearm, inside
        (P3::new(0.5, 0.0, 0.085), Some(0), false), // hand: 0.005 off the hand's skin
    ];
    assert!(sdf(&joints[1].0) > 0.0);
    let b = bones(&joints, &sdf, None);
    let leaf = b.iter().find(|b| b.joint == 1).expect("the hand's segment");
    let len = (leaf.b - leaf.a).norm();
    assert!(len > 0.4, "the hand's segment is {len} long: {leaf:?}");
    assert!((leaf.b.x - 1.0).abs() < 0.01, "{leaf:?}");
    assert!(sdf(&leaf.a) < 0.0 && (leaf.a - joints[1].0).norm() < 0.01);
    // A leaf farther out than half its incoming bone is not moved: no segment.
    let far = vec![
        (P3::new(0.0, 0.0, 0.085), None, false),
        (P3::new(0.5, 0.0, 0.4), Some(0), false),
    ];
    let b = bones(&far, &sdf, None);
    let leaf = b.iter().find(|b| b.joint == 1).expect("segment");
    assert_eq!(leaf.a, leaf.b);
}
