//! Characters built from boxes (Minecraft and Minetest skins and mobs): a rig that leaves a whole
//! box without a bone must not be reported `ok` ([`geppetto::confidence::pieces`]). The figures
//! are written here as small OBJ files with Minecraft's player proportions (head 8 × 8 × 8 px,
//! body 8 × 12 × 4, arms and legs 4 × 12 × 4), no corpus mesh: six separate boxes a hairline
//! apart (1e-4 of the height, the way exporters leave touching boxes), which the outline sees as
//! one slab with one leg column. On main the curve skeleton won with one branch (4 joints through
//! head, body and one leg) and said `ok`, leaving both arms and a leg boneless.

use std::fmt::Write as _;
use std::path::Path;

use geppetto::choose::Template;
use geppetto::config::RigConfig;
use geppetto::pipeline::{Pipeline, RigOutcome, RigRequest};
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

fn rig(boxes: &[Box3], name: &str) -> RigOutcome {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    write_boxes(boxes, &path);
    let mut req = RigRequest::with_sidecar(&path, Template::Auto).expect("request");
    req.skin = false;
    Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("rigs the figure")
}

#[test]
fn a_box_figure_whose_arms_hold_no_bone_is_not_ok() {
    let out = rig(&player(32.0e-4), "player.obj");
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
