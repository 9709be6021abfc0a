//! The curve-skeleton method (issue 10) on corpus creatures no template fits: quality floors that
//! turn red on a drop. CD-J2J against the artist joints (hand_tet, fish_ogre), one branch end per
//! visible tentacle (octopus), a bounded joint count on a many-legged part model (spider_parts),
//! and `--skeleton curve` on a multi-component mesh takes the curve method, not the multipart one.
//!
//! Ceilings are the measured values (see the report of the change that set them) plus a small
//! margin, like tests/quality/corpus_quality.tsv.

mod common;

use std::path::Path;

use geppetto::choose::Template;
use geppetto::config::RigConfig;
use geppetto::curveskel::{CurveMode, METHOD_NAME};
use geppetto::geom::P3;
use geppetto::measure::{joints, truth};
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;

/// The curve rig of `name` (robust mode, no skin), or `None` after a skip.
fn curve_rig(name: &str) -> Option<RigOutcome> {
    let path = common::corpus_mesh(name)?;
    let mut req =
        RigRequest::with_sidecar(&path, Template::Curve(CurveMode::Robust)).expect("request");
    req.skin = false;
    let out = Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.rig.method, METHOD_NAME, "{name}: not a curve rig");
    Some(out)
}

/// CD-J2J (% of the largest side) of the curve rig against the artist joints.
fn cd_j2j(name: &str) -> Option<f64> {
    let out = curve_rig(name)?;
    let truth_path = common::corpus()?.join("truth").join(format!("{name}.json"));
    let t = truth::load(Path::new(&truth_path)).expect("truth");
    let pos: Vec<P3> = out
        .rig
        .joints
        .iter()
        .map(|j| P3::from(j.position))
        .collect();
    let par: Vec<Option<usize>> = out.rig.joints.iter().map(|j| j.parent).collect();
    let m = joints::measure(
        (&pos, &par),
        (&t.positions, &t.parents),
        out.rig.max_extent(),
    );
    println!("{name}: CD-J2J {:.3} % ({} joints)", m.cd_j2j, pos.len());
    Some(m.cd_j2j)
}

#[test]
fn hand_joints_match_the_artist_within_six_percent() {
    // Issue 10's goal is 6 %; measured 5.10 % before the thickness-step joints (a wrist joint
    // where the palm narrows), 4.22 % after. The human template gets 13.9 %.
    let Some(cd) = cd_j2j("hand_tet") else { return };
    assert!(cd <= 4.7, "hand_tet CD-J2J {cd:.2} %");
}

#[test]
fn fish_joints_match_the_artist_spine() {
    let Some(cd) = cd_j2j("fish_ogre") else {
        return;
    };
    // The human template gets 7.8 %; the curve skeleton must stay well below it.
    assert!(cd <= FISH_CEILING, "fish_ogre CD-J2J {cd:.2} %");
}

/// Measured 4.90 % since bend joints settle where their bones follow the curve best
/// (`curveskel::place`; 6.04 % before: the mid-body joint sat 0.6 units behind the artist's),
/// plus margin, within issue 10's goal of 5 %.
const FISH_CEILING: f64 = 5.0;

#[test]
fn octopus_has_one_branch_end_per_tentacle() {
    let Some(out) = curve_rig("octopus") else {
        return;
    };
    let tentacles = end_kinds(&out).get("tentacle").copied().unwrap_or(0);
    assert_eq!(tentacles, 8, "octopus: {tentacles} tentacle ends, want 8");
    // Besides the tentacles, the mantle's end and at most two ends of chains into the body the
    // outline hides (`curveskel::hidden`).
    let ends = out.rig.joints.iter().filter(|j| j.end).count();
    assert!(ends <= 11, "octopus: {ends} branch ends");
    octopus_mantle_reaches_the_top_of_the_body(&out);
    // Every tentacle hangs from the root (the hub), also the two pairs that touch in the primary
    // view (`curveskel::hub`): before, they hung from junctions where they met.
    let j = &out.rig.joints;
    for t in j
        .iter()
        .filter(|t| t.name.starts_with("tentacle_") && t.name.ends_with("_0"))
    {
        let parent = t.parent.map(|p| j[p].name.as_str());
        assert_eq!(
            parent,
            Some("root"),
            "octopus: {} hangs from {parent:?}",
            t.name
        );
    }
    let report = out.rig.curve.as_ref().expect("curve report");
    assert!(
        report.branches <= OCTOPUS_MAX_BRANCHES,
        "octopus: {} branches (8 tentacles and the chains between the junctions where \
         tentacles touch in the view)",
        report.branches
    );
}

/// 8 tentacles, the mantle (`curveskel::mantle`) and at most two chains into the body hidden
/// behind the hub (`curveskel::hidden`); the chains to where tentacles touch in the view are gone
/// (`curveskel::hub`).
const OCTOPUS_MAX_BRANCHES: usize = 11;

/// How far (fraction of the model's largest side) the mantle's end may stay below the mesh's
/// highest point along the mantle's direction from the root: the last ring's centroid lies a
/// ring's width inside the surface, not on it.
const MANTLE_TOP_GAP: f64 = 0.15;

/// The body the tentacles radiate from gets a chain of its own from the root (`curveskel::mantle`)
/// that reaches the far end of the body: before, the sac had no bone (it reaches only 1.3–1.6 hub
/// radii from the hub, too short for `curveskel::hidden`).
fn octopus_mantle_reaches_the_top_of_the_body(out: &RigOutcome) {
    let j = &out.rig.joints;
    let root = j.iter().position(|t| t.parent.is_none()).expect("root");
    let mantle: Vec<usize> = (0..j.len())
        .filter(|&i| j[i].name.starts_with("mantle_"))
        .collect();
    assert!(
        mantle.len() >= 2,
        "octopus: mantle chain of {} joints, want >= 2",
        mantle.len()
    );
    assert_eq!(
        j[mantle[0]].parent,
        Some(root),
        "octopus: mantle not from the root"
    );
    for w in mantle.windows(2) {
        assert_eq!(j[w[1]].parent, Some(w[0]), "octopus: mantle is no chain");
    }
    let at = P3::from(j[root].position);
    let end = P3::from(j[*mantle.last().expect("mantle")].position);
    let dir = (end - at).normalize();
    let path = common::corpus_mesh("octopus").expect("octopus mesh");
    let mesh = geppetto::mesh::load(&path).expect("octopus loads");
    let top = mesh
        .positions
        .iter()
        .map(|p| (p - at).dot(&dir))
        .fold(f64::MIN, f64::max);
    let gap = (top - (end - at).norm()) / out.rig.max_extent();
    assert!(
        gap <= MANTLE_TOP_GAP,
        "octopus: mantle ends {:.1} % of the model below the body's top",
        gap * 100.0
    );
}

#[test]
fn scorpion_tail_chain_follows_the_curl_over_the_back() {
    // The tail rises from the back end and curls forward over the body: seen from above (the
    // primary view) the curl lies over the tail and the body, so the outline's tail branch stops
    // at the rise. The hidden-part chain (surface rings, `curveskel::hidden`) follows it up: the
    // tail's last joint is near the top of the model and forward of where the tail rises.
    let Some(out) = curve_rig("scorpion") else {
        return;
    };
    let tail: Vec<[f64; 3]> = out
        .rig
        .joints
        .iter()
        .filter(|j| j.name.starts_with("tail_"))
        .map(|j| j.position)
        .collect();
    let top = out.rig.bbox[1][1];
    let height = top - out.rig.bbox[0][1];
    let end = tail.last().expect("a tail");
    assert!(
        end[1] >= top - 0.1 * height,
        "tail ends at y {:.2}, the model's top is {top:.2}",
        end[1]
    );
    // Forward (+Z) of the rise: the curl comes back over the back.
    let rise = tail.iter().map(|p| p[2]).fold(f64::INFINITY, f64::min);
    assert!(
        end[2] > rise + 0.25 * height,
        "tail end z {:.2}, rise z {rise:.2}",
        end[2]
    );
    assert!(
        tail.len() >= 6,
        "{} tail joints: one bone cannot curl",
        tail.len()
    );
}

#[test]
fn curve_on_a_part_model_is_the_curve_method_with_bounded_joints() {
    let Some(out) = curve_rig("spider_parts") else {
        return;
    };
    let report = out.rig.curve.as_ref().expect("curve report");
    let n = out.rig.joints.len();
    let per_branch = n as f64 / report.branches.max(1) as f64;
    println!("spider_parts: {n} joints, {} branches", report.branches);
    assert!(
        per_branch <= 8.0,
        "spider_parts: {n} joints over {} branches",
        report.branches
    );
}

/// Joint-end counts by name kind (`leg`, `tentacle`, …) of a curve rig.
fn end_kinds(out: &RigOutcome) -> std::collections::BTreeMap<String, usize> {
    let mut kinds = std::collections::BTreeMap::new();
    for j in out.rig.joints.iter().filter(|j| j.end) {
        let kind = j.name.split('_').next().unwrap_or("").to_string();
        *kinds.entry(kind).or_insert(0) += 1;
    }
    kinds
}

#[test]
fn branches_are_named_by_their_shape() {
    // Issue 10 asks for legs, claws, tail and tentacles by shape, not by leaf count: each
    // creature's own parts, and no part of another creature's kind (a human's five limbs are no
    // tentacles, a scorpion's splayed legs no tentacles, an octopus's arms on the ground no legs).
    let cases: [(&str, &[(&str, usize)]); 4] = [
        ("octopus", &[("tentacle", 8)]),
        ("scorpion", &[("leg", 8), ("claw", 4), ("tail", 1)]),
        ("hand_tet", &[("finger", 4)]),
        ("riggedfigure", &[("leg", 2)]),
    ];
    for (name, want) in cases {
        let Some(out) = curve_rig(name) else { return };
        let kinds = end_kinds(&out);
        println!("{name}: {kinds:?}");
        for (kind, n) in want {
            assert_eq!(kinds.get(*kind), Some(n), "{name}: {kinds:?}");
        }
        if name != "octopus" {
            assert!(!kinds.contains_key("tentacle"), "{name}: {kinds:?}");
        }
        if name != "scorpion" {
            // A wrist and an A-pose arm point away from a thicker part too: no tails.
            assert!(!kinds.contains_key("tail"), "{name}: {kinds:?}");
        }
    }
}
