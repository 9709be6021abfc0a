//! Known-answer tests of `geppetto score` (library and CLI).

mod measure_support;

use std::process::Command;

use geppetto::geom::{P3, V3};
use geppetto::measure::pose::{random_poses, Pose};
use geppetto::measure::score::score_rigs;
use geppetto::rig::{Rig, RigJoint};
use measure_support::rig;
use nalgebra::UnitQuaternion;

fn chain() -> (Vec<P3>, Vec<Option<usize>>) {
    (
        vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(0.0, 10.0, 0.0),
            P3::new(0.0, 20.0, 0.0),
            P3::new(10.0, 20.0, 0.0),
            P3::new(-10.0, 20.0, 0.0),
        ],
        vec![None, Some(0), Some(1), Some(2), Some(2)],
    )
}

#[test]
fn rig_against_itself_scores_zero() {
    let (pos, par) = chain();
    let verts: Vec<P3> = (0..30)
        .map(|i| P3::new(f64::from(i % 7) - 3.0, f64::from(i), f64::from(i % 3)))
        .collect();
    let skin: Vec<Vec<(usize, f64)>> = (0..30)
        .map(|i| vec![(i % 5, 0.7), ((i + 1) % 5, 0.3)])
        .collect();
    let a = rig(pos, par, Some(skin));
    let poses = random_poses(5, 10, 3, 30.0);
    let (j, s, notes) = score_rigs(&a, &a, 40.0, Some(&verts), &poses).expect("score");
    assert_eq!((j.cd_j2j, j.cd_b2b), (0.0, 0.0));
    assert!(j.cd_j2b.abs() < 1e-12, "{}", j.cd_j2b);
    let s = s.unwrap_or_else(|| panic!("skin skipped: {notes:?}"));
    assert_eq!(s.l1_mean, 0.0);
    assert_eq!((s.precision, s.recall), (Some(1.0), Some(1.0)));
    assert_eq!((s.deform_mean_pct, s.deform_p95_pct), (0.0, 0.0));
    assert_eq!((s.vertices, s.poses), (30, 10));
}

#[test]
fn shifted_rig_scores_the_shift() {
    // Joints ≥ 10 apart, shift 0.3 → every nearest joint is the shifted twin.
    let (pos, par) = chain();
    let d = V3::new(0.1, -0.2, 0.2); // |d| = 0.3
    let shifted: Vec<P3> = pos.iter().map(|p| p + d).collect();
    let extent = 40.0;
    let (j, _, _) = score_rigs(
        &rig(shifted, par.clone(), None),
        &rig(pos, par, None),
        extent,
        None,
        &[],
    )
    .expect("score");
    assert!(
        (j.cd_j2j - 100.0 * 0.3 / extent).abs() < 1e-12,
        "{}",
        j.cd_j2j
    );
}

#[test]
fn hand_computed_j2b_and_b2b() {
    // Extent 100 → samples every 0.5. Truth: (0,0)→(2,0): x = 0, .5, 1, 1.5, 2 at y = 0.
    // Pred: (0.7,1)→(0.7,3): y = 1, 1.5, 2, 2.5, 3 at x = 0.7.
    let truth = rig(
        vec![P3::new(0.0, 0.0, 0.0), P3::new(2.0, 0.0, 0.0)],
        vec![None, Some(0)],
        None,
    );
    let pred = rig(
        vec![P3::new(0.7, 1.0, 0.0), P3::new(0.7, 3.0, 0.0)],
        vec![None, Some(0)],
        None,
    );
    let (j, _, _) = score_rigs(&pred, &truth, 100.0, None, &[]).expect("score");
    assert_eq!((j.pred_bone_samples, j.truth_bone_samples), (5, 5));
    let s = f64::sqrt;
    // J2J: C→A √1.49, D→A √9.49; A→C √1.49, B→C √2.69.
    let j2j = 0.5 * ((s(1.49) + s(9.49)) / 2.0 + (s(1.49) + s(2.69)) / 2.0);
    // J2B: pred joints to truth samples (nearest x = 0.5): √1.04, √9.04;
    // truth joints to pred samples (nearest (0.7,1)): √1.49, √2.69.
    let j2b = 0.5 * ((s(1.04) + s(9.04)) / 2.0 + (s(1.49) + s(2.69)) / 2.0);
    // B2B: pred sample y → √(0.04 + y²); truth sample x → √((x − 0.7)² + 1).
    let a: f64 = [1.0, 1.5, 2.0, 2.5, 3.0]
        .iter()
        .map(|y: &f64| s(0.04 + y * y))
        .sum();
    let b: f64 = [0.0, 0.5, 1.0, 1.5, 2.0]
        .iter()
        .map(|x: &f64| s((x - 0.7) * (x - 0.7) + 1.0))
        .sum();
    let b2b = 0.5 * (a / 5.0 + b / 5.0);
    // Extent 100, so % of extent equals mesh units.
    assert!((j.cd_j2j - j2j).abs() < 1e-12, "{} vs {j2j}", j.cd_j2j);
    assert!((j.cd_j2b - j2b).abs() < 1e-12, "{} vs {j2b}", j.cd_j2b);
    assert!((j.cd_b2b - b2b).abs() < 1e-12, "{} vs {b2b}", j.cd_b2b);
}

#[test]
fn hand_computed_skin_measures() {
    // Joints A=(0,0,0) → B=(1,0,0); B rotated 90° about Z; one vertex at (2,0,0).
    // Pred binds it to B only → (1,1,0); truth half/half → (1.5,0.5,0); distance √0.5.
    let pos = vec![P3::new(0.0, 0.0, 0.0), P3::new(1.0, 0.0, 0.0)];
    let par = vec![None, Some(0)];
    let pred = rig(pos.clone(), par.clone(), Some(vec![vec![(1, 1.0)]]));
    let truth = rig(pos, par, Some(vec![vec![(0, 0.5), (1, 0.5)]]));
    let rz = UnitQuaternion::from_axis_angle(&V3::z_axis(), std::f64::consts::FRAC_PI_2);
    let pose = Pose {
        rotations: vec![UnitQuaternion::identity(), rz],
    };
    let verts = [P3::new(2.0, 0.0, 0.0)];
    let (_, s, notes) = score_rigs(&pred, &truth, 100.0, Some(&verts), &[pose]).expect("score");
    let s = s.unwrap_or_else(|| panic!("skin skipped: {notes:?}"));
    assert!((s.l1_mean - 1.0).abs() < 1e-15);
    assert_eq!((s.precision, s.recall), (Some(1.0), Some(0.5)));
    assert!((s.deform_mean_pct - 0.5f64.sqrt()).abs() < 1e-12);
    assert!((s.deform_p95_pct - 0.5f64.sqrt()).abs() < 1e-12);
}

#[test]
fn skin_is_skipped_on_another_skeleton() {
    let (pos, par) = chain();
    let moved: Vec<P3> = pos.iter().map(|p| p + V3::new(1.0, 0.0, 0.0)).collect();
    let skin = Some(vec![vec![(0, 1.0)]]);
    let verts = [P3::origin()];
    let (_, s, notes) = score_rigs(
        &rig(moved, par.clone(), skin.clone()),
        &rig(pos, par, skin),
        40.0,
        Some(&verts),
        &[],
    )
    .expect("score");
    assert!(s.is_none());
    assert!(
        notes.iter().any(|n| n.contains("not TRUTH's skeleton")),
        "{notes:?}"
    );
}

fn rig_file(dir: &std::path::Path, name: &str, pos: &[P3], par: &[Option<usize>]) -> String {
    let r = Rig {
        mesh: "none.obj".into(),
        joints: pos
            .iter()
            .zip(par)
            .enumerate()
            .map(|(i, (p, q))| RigJoint {
                name: format!("j{i}"),
                parent: *q,
                position: [p.x, p.y, p.z],
                end: false,
            })
            .collect(),
        bbox: [[-20.0, 0.0, -1.0], [20.0, 25.0, 1.0]],
        ..Rig::default()
    };
    let path = dir.join(name);
    std::fs::write(&path, r.to_json()).expect("write rig");
    path.display().to_string()
}

#[test]
fn cli_scores_itself_and_a_shift() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (pos, par) = chain();
    let a = rig_file(dir.path(), "a.rig.json", &pos, &par);
    let shifted: Vec<P3> = pos.iter().map(|p| p + V3::new(0.0, 0.4, 0.0)).collect();
    let b = rig_file(dir.path(), "b.rig.json", &shifted, &par);
    let run = |p: &str, t: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
            .args(["score", p, t, "--json"])
            .output()
            .expect("run geppetto");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let same = run(&a, &a);
    assert_eq!(same["joints"]["cd_j2j"].as_f64(), Some(0.0));
    assert_eq!(same["extent"].as_f64(), Some(40.0));
    assert_eq!(same["extent_source"].as_str(), Some("PRED rig.json bbox"));
    let shift = run(&b, &a);
    let j2j = shift["joints"]["cd_j2j"].as_f64().unwrap_or(-1.0);
    assert!((j2j - 1.0).abs() < 1e-12, "{j2j}"); // 0.4 / 40 = 1 %
                                                 // The table mentions every measure; an unreadable file is exit 1 with a message.
    let table = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["score", &b, &a])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("CD-J2J") && text.contains("CD-B2B") && text.contains("% of extent"));
    let bad = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["score", "/nonexistent.rig.json", &a])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nonexistent"));
}

#[test]
fn weights_transfer_to_duplicated_vertices_by_position() {
    use geppetto::measure::score::transfer_by_position;
    let pred_pos = [P3::new(0.0, 0.0, 0.0), P3::new(1.0, 0.0, 0.0)];
    let pred_w = vec![vec![(0, 1.0)], vec![(1, 0.6), (0, 0.4)]];
    // TRUTH splits vertex 1 into two copies (a seam) and lists them first.
    let truth_pos = [
        P3::new(1.0, 0.0, 0.0),
        P3::new(1.0 + 1e-9, 0.0, 0.0),
        P3::new(0.0, 0.0, 0.0),
    ];
    let w = transfer_by_position(&pred_pos, &pred_w, &truth_pos, 1e-6).expect("transfer");
    assert_eq!(
        w,
        vec![pred_w[1].clone(), pred_w[1].clone(), pred_w[0].clone()]
    );
    let far = [P3::new(0.5, 0.0, 0.0)];
    assert!(transfer_by_position(&pred_pos, &pred_w, &far, 1e-6).is_err());
}

/// A rig mirrored left for right scores as well as the right one on the Chamfer measures; the
/// side agreement tells them apart (`score --json` `sides`, and the table's `sides` row).
#[test]
fn cli_side_agreement_sees_a_mirrored_rig() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, left_x: f64| -> String {
        let joint = |name: &str, parent: Option<usize>, position: [f64; 3]| RigJoint {
            name: name.into(),
            parent,
            position,
            end: false,
        };
        let r = Rig {
            mesh: "none.obj".into(),
            joints: vec![
                joint("Hips", None, [0.0, 10.0, 0.0]),
                joint("LeftArm", Some(0), [left_x, 15.0, 0.0]),
                joint("RightArm", Some(0), [-left_x, 15.0, 0.0]),
            ],
            bbox: [[-20.0, 0.0, -1.0], [20.0, 25.0, 1.0]],
            ..Rig::default()
        };
        let path = dir.path().join(name);
        std::fs::write(&path, r.to_json()).expect("write rig");
        path.display().to_string()
    };
    let truth = write("truth.rig.json", 5.0);
    let mirrored = write("mirrored.rig.json", -5.0);
    let run = |p: &str, json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_geppetto"));
        cmd.args(["score", p, &truth]);
        if json {
            cmd.arg("--json");
        }
        cmd.output().expect("run geppetto").stdout
    };
    let same: serde_json::Value = serde_json::from_slice(&run(&truth, true)).expect("json");
    let mirror: serde_json::Value = serde_json::from_slice(&run(&mirrored, true)).expect("json");
    assert_eq!(same["joints"]["cd_j2j"], mirror["joints"]["cd_j2j"]);
    assert_eq!(
        same["sides"],
        serde_json::json!({"agree": 2, "compared": 2})
    );
    assert_eq!(
        mirror["sides"],
        serde_json::json!({"agree": 0, "compared": 2})
    );
    let table = String::from_utf8_lossy(&run(&mirrored, false)).into_owned();
    assert!(
        table.contains("0 of 2 side-named joints nearest a joint of the same side"),
        "{table}"
    );
    // The table says what the number means: a bare 0.000 did not.
    assert!(
        table.contains("note: sides: 2 of 2 side-named joints sit nearest a TRUTH joint of the other side: PRED's left and right are swapped"),
        "{table}"
    );
    let right = String::from_utf8_lossy(&run(&truth, false)).into_owned();
    assert!(!right.contains("note: sides"), "{right}");
}
