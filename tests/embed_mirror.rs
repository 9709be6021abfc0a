//! A left–right symmetric shape gets a mirror-symmetric skeleton even when its medial samples are
//! not symmetric (real discretizations never are: `embed::mirror`), and a shape that is not
//! symmetric keeps the skeleton the embedding found.

use geppetto::discretize::Sphere;
use geppetto::embed::mirror::{self, reflect};
use geppetto::embed::run_with as embed_with;
use geppetto::embed::synthetic::{graph_of, Capsules};
use geppetto::embed::{EmbedOptions, Embedding};
use geppetto::geom::P3;
use geppetto::skeleton::{load_template, Skeleton};

fn never() -> bool {
    false
}

/// The stick human's axis samples, every 0.02 on its right half and every 0.035 on its left: the
/// shape (and its distance field) is symmetric, the samples are not.
fn lopsided_samples(shape: &Capsules) -> Vec<Sphere> {
    let (_, fine) = shape.discretize(0.02);
    let (_, coarse) = shape.discretize(0.035);
    let mut s: Vec<Sphere> = fine.into_iter().filter(|s| s.center.x <= 0.5).collect();
    s.extend(coarse.into_iter().filter(|s| s.center.x > 0.5));
    s.sort_by(|a, b| b.radius.total_cmp(&a.radius));
    s
}

/// The human template embedded in `shape` over `medial`'s sphere graph, with the defaults.
fn embed_human(shape: &Capsules, medial: &[Sphere]) -> (Skeleton, Embedding) {
    let g = graph_of(medial);
    let s = load_template("human").unwrap();
    let e = embed_with(&g, shape, medial, &s, &[], &EmbedOptions::default(), &never).unwrap();
    (s, e)
}

/// Largest distance between a paired joint and its mirror's reflection, and of an unpaired joint
/// from the mirror plane x = 0.5.
fn mirror_error(s: &Skeleton, joints: &[P3]) -> (f64, String) {
    let mut worst = (0.0, String::new());
    for (i, j) in s.joints.iter().enumerate() {
        let e = match j.symmetric {
            Some(m) => (joints[i] - reflect(&joints[m.0], 0)).norm(),
            None => (joints[i].x - 0.5).abs(),
        };
        if e > worst.0 {
            worst = (e, j.name.clone());
        }
    }
    worst
}

#[test]
fn a_symmetric_shape_sampled_lopsidedly_gets_a_symmetric_skeleton() {
    let shape = Capsules::human();
    let medial = lopsided_samples(&shape);
    assert!(mirror::is_symmetric(&shape, &medial, 0));
    let (s, e) = embed_human(&shape, &medial);
    let (err, name) = mirror_error(&s, &e.joints);
    assert!(err < 1e-9, "{name} is {err} from its mirror image");
    // Still on the figure: the hands at the hands, every joint inside.
    let hand = e.joints[s.find("LeftHand").unwrap().0];
    assert!(
        hand.x > 0.82 && (hand.y - 0.72).abs() < 0.03,
        "left hand {hand}"
    );
    for (k, p) in e.joints.iter().enumerate() {
        let f = geppetto::discretize::Field::eval(&shape, p);
        assert!(f < 0.005, "{} outside: {f}", s.joints[k].name);
    }
}

#[test]
fn a_shape_with_one_armoured_forearm_is_not_made_symmetric() {
    // The left forearm (x > 0.5) a third thicker, as under a gauntlet: no longer a mirror image.
    let mut shape = Capsules::human();
    for seg in shape
        .segs
        .iter_mut()
        .filter(|s| s.0.x > 0.7 && s.0.x < 0.75)
    {
        seg.2 += 0.01;
        seg.3 += 0.01;
    }
    let medial = lopsided_samples(&shape);
    assert!(!mirror::is_symmetric(&shape, &medial, 0));
    let (s, e) = embed_human(&shape, &medial);
    let (err, name) = mirror_error(&s, &e.joints);
    assert!(
        err > 1e-3,
        "{name}: the embedding's own placement is kept ({err})"
    );
    let hand = e.joints[s.find("LeftHand").unwrap().0];
    assert!(
        hand.x > 0.82 && (hand.y - 0.72).abs() < 0.03,
        "left hand {hand}"
    );
}

#[test]
fn symmetrize_averages_pairs_and_leaves_pins_and_their_mirrors() {
    let s = load_template("human").unwrap();
    let mut joints: Vec<P3> = s
        .joints
        .iter()
        .map(|j| P3::new(0.5 + j.rest.x * 0.1, 0.5, 0.5))
        .collect();
    let (l, r) = (s.find("LeftArm").unwrap().0, s.find("RightArm").unwrap().0);
    let (lh, rh) = (
        s.find("LeftHand").unwrap().0,
        s.find("RightHand").unwrap().0,
    );
    let hips = s.find("Hips").unwrap().0;
    joints[l] = P3::new(0.70, 0.60, 0.50);
    joints[r] = P3::new(0.34, 0.64, 0.52);
    joints[lh] = P3::new(0.9, 0.6, 0.5);
    joints[rh] = P3::new(0.2, 0.5, 0.5);
    joints[hips] = P3::new(0.53, 0.4, 0.5);
    // A field with everything inside: only the rule is tested here.
    let inside = Capsules {
        segs: vec![(P3::new(0.5, 0.0, 0.5), P3::new(0.5, 1.0, 0.5), 2.0, 2.0)],
    };
    mirror::symmetrize(&mut joints, &s, &inside, 0, &[lh]);
    assert!(
        (joints[l] - P3::new(0.68, 0.62, 0.51)).norm() < 1e-12,
        "{}",
        joints[l]
    );
    assert!(
        (joints[r] - P3::new(0.32, 0.62, 0.51)).norm() < 1e-12,
        "{}",
        joints[r]
    );
    assert_eq!(joints[lh], P3::new(0.9, 0.6, 0.5), "a pinned joint stays");
    assert_eq!(joints[rh], P3::new(0.2, 0.5, 0.5), "so does its mirror");
    assert_eq!(
        joints[hips],
        P3::new(0.5, 0.4, 0.5),
        "an unpaired joint goes onto the plane"
    );
}

#[test]
fn symmetrize_never_moves_a_joint_out_of_the_shape() {
    // Two legs apart, nothing between them: a hip placed in the left leg would land in the gap on
    // the plane, so it stays; the pair of knees, one in each leg, is averaged.
    let legs = Capsules {
        segs: vec![
            (P3::new(0.4, 0.1, 0.5), P3::new(0.4, 0.6, 0.5), 0.05, 0.05),
            (P3::new(0.6, 0.1, 0.5), P3::new(0.6, 0.6, 0.5), 0.05, 0.05),
        ],
    };
    let s = load_template("human").unwrap();
    let mut joints: Vec<P3> = s.joints.iter().map(|_| P3::new(0.4, 0.3, 0.5)).collect();
    let (hips, l, r) = (
        s.find("Hips").unwrap().0,
        s.find("LeftLeg").unwrap().0,
        s.find("RightLeg").unwrap().0,
    );
    joints[hips] = P3::new(0.61, 0.55, 0.5);
    joints[l] = P3::new(0.62, 0.3, 0.5);
    joints[r] = P3::new(0.4, 0.32, 0.5);
    mirror::symmetrize(&mut joints, &s, &legs, 0, &[]);
    assert_eq!(
        joints[hips],
        P3::new(0.61, 0.55, 0.5),
        "the hip stays in its leg"
    );
    assert!(
        (joints[l] - P3::new(0.61, 0.31, 0.5)).norm() < 1e-12,
        "{}",
        joints[l]
    );
    assert!(
        (joints[r] - P3::new(0.39, 0.31, 0.5)).norm() < 1e-12,
        "{}",
        joints[r]
    );
}
