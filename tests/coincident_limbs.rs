//! Two template limbs embedded in one limb of the shape must not pass as a sound rig. Reproduces a
//! held-out blocky character (Minetest's player model: seven boxes, the two leg boxes touching in one
//! column): searched upright, both leg chains ran down the same column, the toe ends at the same
//! point, penalty 0.247 (below the 0.25 cut-off) and no other reason — a wrong rig reported `ok`.
//! Here: the synthetic stick human (the control, legs apart) and the same figure whose two legs
//! are one thick column.

use geppetto::confidence::assess_with;
use geppetto::embed::run_with as embed_with;
use geppetto::embed::synthetic::Capsules;
use geppetto::embed::EmbedOptions;
use geppetto::geom::P3;
use geppetto::skeleton::load_template;

fn never() -> bool {
    false
}

/// Confidence reasons of the human template embedded in `shape` (upright, the default frame).
fn reasons(shape: &Capsules) -> Vec<String> {
    let (g, medial) = shape.discretize(0.02);
    let s = load_template("human").unwrap();
    let e = embed_with(
        &g,
        shape,
        &medial,
        &s,
        &[],
        &EmbedOptions::default(),
        &never,
    )
    .unwrap();
    assess_with(shape, g.len(), &s, &e).reasons
}

fn same_place(reasons: &[String]) -> Vec<&String> {
    reasons
        .iter()
        .filter(|r| r.contains("end in the same place"))
        .collect()
}

#[test]
fn two_legs_in_one_column_are_called_out() {
    let human = Capsules::human();
    let apart = reasons(&human);
    assert!(same_place(&apart).is_empty(), "control: {apart:?}");

    // The legs (thigh, shin, foot on each side) replaced by one column under the hips, as thick
    // as the two legs side by side.
    let p = P3::new;
    let mut one = Capsules {
        segs: human.segs[..3].to_vec(),
    };
    for s in [-1.0, 1.0] {
        let x = |d: f64| 0.5 + s * d;
        one.segs
            .push((p(x(0.06), 0.72, 0.5), p(x(0.24), 0.72, 0.5), 0.035, 0.03));
        one.segs
            .push((p(x(0.24), 0.72, 0.5), p(x(0.38), 0.72, 0.5), 0.03, 0.025));
        one.segs
            .push((p(x(0.38), 0.72, 0.5), p(x(0.44), 0.72, 0.5), 0.025, 0.02));
    }
    one.segs
        .push((p(0.5, 0.45, 0.5), p(0.5, 0.06, 0.5), 0.1, 0.09));
    let merged = reasons(&one);
    let hits = same_place(&merged);
    assert!(
        hits.iter().any(|r| r.contains("Toe_End")),
        "both leg chains share the column: {merged:?}"
    );
}
