//! The empty-part check (`confidence::parts`) on synthetic capsule figures: a chain that stops at
//! the shoulder or in the neck leaves a limb or a big head without joints, and the check names it;
//! the correct embedding of the same figure, and a tail no template chain continues, are not flagged.

use geppetto::confidence::parts::{empty_parts, EmptyPart};
use geppetto::discretize::SphereGraph;
use geppetto::embed::reduced::Reduced;
use geppetto::embed::run_with as embed_with;
use geppetto::embed::synthetic::Capsules;
use geppetto::embed::{EmbedOptions, Embedding};
use geppetto::geom::{NodeId, P3};
use geppetto::skeleton::{load_template, Skeleton};

fn never() -> bool {
    false
}

fn embed(shape: &Capsules, s: &Skeleton) -> (SphereGraph, Embedding) {
    let (g, medial) = shape.discretize(0.02);
    let e = embed_with(&g, shape, &medial, s, &[], &EmbedOptions::default(), &never).unwrap();
    (g, e)
}

/// The parts of `q`, with each reduced joint's graph vertex snapped to `q` (as the discrete
/// embedding of that placement would be).
fn parts(g: &SphereGraph, s: &Skeleton, e: &Embedding, q: &[P3]) -> Vec<EmptyPart> {
    let red = Reduced::new(s);
    let discrete: Vec<NodeId> = red
        .joints
        .iter()
        .map(|r| {
            let p = q[r.full.0];
            let near = (0..g.len()).min_by(|a, b| {
                let d = |i: usize| (g.spheres[i].center - p).norm();
                d(*a).total_cmp(&d(*b))
            });
            NodeId(near.unwrap() as u32)
        })
        .collect();
    empty_parts(g, s, q, &discrete, &e.orientation, &[])
}

fn set(s: &Skeleton, q: &mut [P3], name: &str, p: P3) {
    q[s.find(name).unwrap_or_else(|| panic!("{name}")).0] = p;
}

/// The stick human with a head `radius` thick on a longer neck.
fn big_head(radius: f64) -> Capsules {
    let mut shape = Capsules::human();
    let p = |y: f64| P3::new(0.5, y, 0.5);
    shape.segs[1] = (p(0.72), p(0.84), 0.035, 0.035);
    shape.segs[2] = (p(0.84 + radius), p(0.85 + radius), radius, radius);
    shape
}

#[test]
fn correct_embeddings_hold_every_part() {
    let s = load_template("human").unwrap();
    for shape in [Capsules::human(), big_head(0.08)] {
        let (g, e) = embed(&shape, &s);
        let found = parts(&g, &s, &e, &e.joints);
        assert!(found.is_empty(), "{found:?}");
    }
}

#[test]
fn an_arm_chain_stopped_at_the_shoulder_leaves_the_arm_empty() {
    let s = load_template("human").unwrap();
    let (g, e) = embed(&Capsules::human(), &s);
    let mut q = e.joints.clone();
    // The left arm (at −X) collapsed onto the shoulder: its joints 1–4 cm apart at the body's side.
    for (k, name) in ["LeftArm", "LeftForeArm", "LeftHand", "LeftHand_End"]
        .iter()
        .enumerate()
    {
        set(&s, &mut q, name, P3::new(0.43 - 0.01 * k as f64, 0.72, 0.5));
    }
    let found = parts(&g, &s, &e, &q);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].chain, "LeftHand_End");
    assert!(found[0].direction.contains("left"), "{found:?}");
    assert!(found[0].reason().contains("holds no joint"));
}

#[test]
fn a_head_chain_ending_in_the_neck_leaves_a_big_head_empty() {
    let s = load_template("human").unwrap();
    let (g, e) = embed(&big_head(0.08), &s);
    let mut q = e.joints.clone();
    for (name, y) in [("Neck", 0.76), ("Head", 0.79), ("HeadTop_End", 0.82)] {
        set(&s, &mut q, name, P3::new(0.5, y, 0.5));
    }
    let found = parts(&g, &s, &e, &q);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].chain, "HeadTop_End");
    assert_eq!(found[0].direction, "upper");
}

#[test]
fn a_tail_no_chain_continues_is_not_judged() {
    let s = load_template("human").unwrap();
    let mut shape = Capsules::human();
    let p = |y: f64, z: f64| P3::new(0.5, y, z);
    shape.segs.push((p(0.46, 0.44), p(0.3, 0.2), 0.04, 0.03));
    let (g, e) = embed(&shape, &s);
    let found = parts(&g, &s, &e, &e.joints);
    assert!(found.is_empty(), "{found:?}");
}
