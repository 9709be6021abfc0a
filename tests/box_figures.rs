//! Characters built from boxes (Minecraft and Minetest skins and mobs): by default they are rigged
//! on their boxes ([`geppetto::boxfig`]: a bone in every box, `ok` when right); on the template
//! embedding, a rig that leaves a whole box without a bone must not be reported `ok`
//! ([`geppetto::confidence::pieces`]). The figures
//! are written here as small OBJ files with Minecraft's player proportions (head 8 × 8 × 8 px,
//! body 8 × 12 × 4, arms and legs 4 × 12 × 4), no corpus mesh: six separate boxes a hairline
//! apart (1e-4 of the height, the way exporters leave touching boxes), which the outline sees as
//! one slab with one leg column. On main the curve skeleton won with one branch (4 joints through
//! head, body and one leg) and said `ok`, leaving both arms and a leg boneless.

use std::fmt::Write as _;
use std::path::Path;

use geppetto::choose::Template;
use geppetto::config::RigConfig;
use geppetto::pipeline::{Method, Pipeline, RigOutcome, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Status;

type Box3 = ([f64; 3], [f64; 3]);

/// Minecraft's player, px, +Y up facing +Z: body, head, arms, legs; each box `gap` apart from
/// the body (and the legs from each other).
fn player(gap: f64) -> Vec<Box3> {
    let g = gap;
    vec![
        ([-4.0, 12.0, -2.0], [4.0, 24.0, 2.0]),
        ([-4.0, 24.0 + g, -4.0], [4.0, 32.0 + g, 4.0]),
        ([4.0 + g, 12.0, -2.0], [8.0 + g, 24.0, 2.0]),
        ([-8.0 - g, 12.0, -2.0], [-4.0 - g, 24.0, 2.0]),
        ([g / 2.0, -g, -2.0], [4.0 + g / 2.0, 12.0 - g, 2.0]),
        ([-4.0 - g / 2.0, -g, -2.0], [-g / 2.0, 12.0 - g, 2.0]),
    ]
}

/// The boxes as one OBJ (outward quads).
fn write_boxes(boxes: &[Box3], path: &Path) {
    let mut s = String::new();
    for (k, (lo, hi)) in boxes.iter().enumerate() {
        for x in [lo[0], hi[0]] {
            for y in [lo[1], hi[1]] {
                for z in [lo[2], hi[2]] {
                    writeln!(s, "v {x} {y} {z}").unwrap();
                }
            }
        }
        // Corner index x·4 + y·2 + z (1-based in the file).
        for q in [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ] {
            let q = q.map(|i| 8 * k + i + 1);
            writeln!(s, "f {} {} {} {}", q[0], q[1], q[2], q[3]).unwrap();
        }
    }
    std::fs::write(path, s).unwrap();
}

fn rig(boxes: &[Box3], name: &str, method: Method) -> RigOutcome {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    write_boxes(boxes, &path);
    let mut req = RigRequest::with_sidecar(&path, Template::Auto).expect("request");
    req.skin = false;
    req.method = method;
    Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("rigs the figure")
}

#[test]
fn a_box_figure_whose_arms_hold_no_bone_is_not_ok() {
    let out = rig(&player(32.0e-4), "player.obj", Method::Embed);
    assert_eq!(out.prepared.shells.len(), 6, "six separate boxes");
    assert_eq!(out.rig.status, Status::LowConfidence, "{:?}", out.rig);
    assert!(
        out.rig
            .confidence_reasons
            .iter()
            .any(|r| r.contains("closed convex pieces")),
        "{:?}",
        out.rig.confidence_reasons
    );
    assert!(out
        .rig
        .templates
        .iter()
        .filter(|t| t.chosen)
        .all(|t| t.status == Some(Status::LowConfidence)));
}

/// A four-legged box animal, +Y up facing +Z: body 8 × 6 × 16, head 6³ at the front, legs
/// 3 × 6 × 3 under the body's corners, `gap` apart from it.
fn animal(gap: f64) -> Vec<Box3> {
    let mut b = vec![
        ([-4.0, 6.0, -8.0], [4.0, 12.0, 8.0]),
        ([-3.0, 9.0, 8.0 + gap], [3.0, 15.0, 14.0 + gap]),
    ];
    for (x, z) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
        let (cx, cz) = (x * 2.5, z * 6.5);
        b.push(([cx - 1.5, 0.0, cz - 1.5], [cx + 1.5, 6.0 - gap, cz + 1.5]));
    }
    b
}

/// The rig's joints that lie inside `b` (within `tol` px).
fn joints_in(out: &RigOutcome, b: &Box3, tol: f64) -> Vec<String> {
    out.rig
        .joints
        .iter()
        .filter(|j| (0..3).all(|k| j.position[k] >= b.0[k] - tol && j.position[k] <= b.1[k] + tol))
        .map(|j| j.name.clone())
        .collect()
}

/// Rigged by default: `ok`, the expected template, and every box holds a joint of its own part
/// (named by `parts`: a substring of a joint name per box, in box order), none of another part.
fn assert_rigged_right(out: &RigOutcome, template: &str, boxes: &[Box3], parts: &[&str]) {
    assert_eq!(
        out.rig.status,
        Status::Ok,
        "{:?}",
        out.rig.confidence_reasons
    );
    assert_eq!(out.rig.skeleton, template);
    for (b, part) in boxes.iter().zip(parts) {
        let inside = joints_in(out, b, 1e-6);
        assert!(
            inside.iter().any(|n| n.contains(part)),
            "box {b:?} ({part}) holds {inside:?}"
        );
    }
}

#[test]
fn box_players_are_rigged_on_their_boxes() {
    // Touching (welded where corners meet), 0.5 px apart, and a hairline apart; left = +X.
    let parts = [
        "Spine",
        "Head",
        "LeftArm",
        "RightArm",
        "LeftUpLeg",
        "RightUpLeg",
    ];
    for gap in [0.0, 0.5, 32.0e-4] {
        let boxes = player(gap);
        let out = rig(&boxes, "player.obj", Method::Auto);
        assert_rigged_right(&out, "human", &boxes, &parts);
        // The arm runs down its box: shoulder end high, hand end low.
        let y = |n: &str| {
            out.rig
                .joints
                .iter()
                .find(|j| j.name == n)
                .map(|j| j.position[1])
                .unwrap()
        };
        assert!(y("LeftArm") > 20.0 && y("LeftHand_End") < 14.0, "gap {gap}");
    }
}

#[test]
fn a_box_animal_is_rigged_as_a_quadruped() {
    let parts = [
        "Spine",
        "Head",
        "LeftFront",
        "RightFront",
        "LeftHind",
        "RightHind",
    ];
    for gap in [0.0, 0.3] {
        let boxes = animal(gap);
        let out = rig(&boxes, "animal.obj", Method::Auto);
        assert_rigged_right(&out, "quadruped", &boxes, &parts);
    }
}
