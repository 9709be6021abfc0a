//! Rig editing with local re-solves (Bang et al. 2015) on a long tube with a chain of joints and an
//! exact signed distance: the checks of the interactive-rigging facts sheet §10.

mod edit_common;

use edit_common::*;
use geppetto::edit::sidecar::{replay, EditLog, VERSION};
use geppetto::edit::{EditOp, Session};
use geppetto::mesh::PreparedMesh;
use geppetto::skin::skin_with_sdf;

#[test]
fn global_solve_with_default_controls_equals_the_plain_solver() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let skin = skin_with_sdf(&f.mesh, &sdf, &joints(), &opts()).expect("skin");
    let mut s = Session::new(&f.mesh, &sdf, joints(), &skin, opts()).expect("session");
    let d = max_diff(&skin.weights, &s.skin_table());
    assert!(
        d < 1e-12,
        "the session's global solve differs from the plain solver by {d}"
    );
    let out = s.global().expect("global");
    assert!(out.global && out.region == f.mesh.positions.len());
    assert!(max_diff(&skin.weights, &s.skin_table()) < 1e-12);
}

#[test]
fn a_joint_move_changes_weights_only_inside_its_region_and_agrees_with_global() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    s.set_eps(1e-4).unwrap();
    let before = s.welded_rows().to_vec();
    let j4 = joints()[4].position;
    let watch_hot: Vec<bool> = s
        .raw_rows()
        .iter()
        .map(|r| r.iter().any(|e| (e.0 == 3 || e.0 == 4) && e.1 > s.eps()))
        .collect();
    let out = s.apply(&mv("j4", [0.12, j4[1] + 0.25, 0.0])).expect("move");
    let m = f.mesh.positions.len();
    assert!(
        out.region > 0 && out.region < m,
        "region {} of {m}",
        out.region
    );
    let after = s.welded_rows().to_vec();
    // Locality: the rows that changed lie in the region; all vertices where the watched weights
    // were non-zero are in it (region rule); everything else is bit-identical.
    let changed: Vec<usize> = (0..m).filter(|&v| before[v] != after[v]).collect();
    assert!(!changed.is_empty());
    assert!(changed.len() <= out.region);
    let hot = watch_hot.iter().filter(|&&h| h).count();
    assert!(
        out.region >= hot,
        "region {} smaller than the hot set {hot}",
        out.region
    );
    assert_unity(&after);
    // Far from the edit (the ends of the tube, beyond the rule's region and the drag region's two
    // extra rings) nothing moved at all.
    for v in 0..m {
        let y = f.mesh.normalization.to_mesh(&f.mesh.positions[v]).y;
        if !(0.8..=7.2).contains(&y) {
            assert_eq!(before[v], after[v], "vertex at y = {y} changed");
        }
    }
    // Local ≈ global with the same parameters.
    let mut g = s.clone();
    g.global().expect("global");
    let d = max_diff(&after, g.welded_rows());
    eprintln!(
        "local vs global after a move: max |Δw| = {d:.2e}, d = {} of {m}",
        out.region
    );
    assert!(d < s.eps(), "local and global differ by {d}");
    // No seam: the largest jump across region-border edges is no larger than inside the region.
    seam_check(&f.mesh, &before, &after);
}

/// Compare per-edge weight jumps of joint 4 across changed/unchanged borders with the interior.
fn seam_check(mesh: &PreparedMesh, before: &[Vec<(u32, f64)>], after: &[Vec<(u32, f64)>]) {
    let w = |r: &[(u32, f64)]| r.iter().find(|e| e.0 == 4).map_or(0.0, |e| e.1);
    let changed: Vec<bool> = before.iter().zip(after).map(|(a, b)| a != b).collect();
    let (mut border, mut inner) = (0.0f64, 0.0f64);
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
            let jump = (w(&after[a]) - w(&after[b])).abs();
            if changed[a] != changed[b] {
                border = border.max(jump);
            } else if changed[a] {
                inner = inner.max(jump);
            }
        }
    }
    assert!(
        border <= inner + 1e-9,
        "seam: border jump {border} > interior {inner}"
    );
}

#[test]
fn insert_and_delete_keep_the_invariants() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    // At the prune level the region keeps every non-zero weight: insert + delete is then exact.
    s.set_eps(1e-4).unwrap();
    let before = s.welded_rows().to_vec();
    s.apply(&EditOp::InsertJoint {
        child: "j5".into(),
        at: 0.5,
        name: "j45".into(),
    })
    .expect("insert");
    assert_eq!(s.joints.len(), JOINTS + 1);
    let n = s
        .joints
        .iter()
        .position(|j| j.name == "j45")
        .expect("new joint");
    let (p4, p5) = (joints()[4].position, joints()[5].position);
    assert!((s.joints[n].position[1] - 0.5 * (p4[1] + p5[1])).abs() < 1e-12);
    assert_eq!(s.joints[n].parent, Some(4));
    assert_eq!(s.joints[n + 1].parent, Some(n));
    assert_unity(s.welded_rows());
    let owned = s
        .welded_rows()
        .iter()
        .flatten()
        .filter(|e| e.0 == n as u32)
        .count();
    assert!(owned > 0, "the new joint owns no vertex");
    // Far vertices: same weights, joint indices shifted above the insertion.
    for (v, row) in s.welded_rows().iter().enumerate() {
        let y = f.mesh.normalization.to_mesh(&f.mesh.positions[v]).y;
        if y < 1.0 {
            assert_eq!(row, &before[v]);
        }
    }
    let root = s.apply(&EditOp::DeleteJoint { joint: "j0".into() });
    assert!(root.is_err(), "deleting the root must be refused");
    s.apply(&EditOp::DeleteJoint {
        joint: "j45".into(),
    })
    .expect("delete");
    assert_eq!(s.joints, joints());
    assert_unity(s.welded_rows());
    let mut g = s.clone();
    g.global().expect("global");
    let d = max_diff(s.welded_rows(), &before);
    eprintln!("insert then delete vs base: max |Δw| = {d:.2e}");
    assert!(d < 1e-9, "insert + delete drifted by {d}");
    s.apply(&EditOp::DeleteJoint { joint: "j3".into() })
        .expect("delete j3");
    assert_eq!(s.joints.len(), JOINTS - 1);
    assert_eq!(s.joints[3].name, "j4");
    assert_eq!(s.joints[3].parent, Some(2));
    assert!(s
        .welded_rows()
        .iter()
        .flatten()
        .all(|e| (e.0 as usize) < JOINTS - 2));
}

#[test]
fn magnitude_raises_the_joints_weights_and_one_changes_nothing() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let base = s.welded_rows().to_vec();
    s.apply(&EditOp::Magnitude {
        joint: "j4".into(),
        c: 1.0,
    })
    .expect("c = 1");
    let d = max_diff(&base, s.welded_rows());
    assert!(d < 1e-9, "c = 1 changed the weights by {d}");
    let total = |rows: &[Vec<(u32, f64)>]| -> f64 {
        rows.iter()
            .flatten()
            .filter(|e| e.0 == 4)
            .map(|e| e.1)
            .sum()
    };
    let mut last = total(&base);
    let mut prev = base.clone();
    for c in [1.5, 3.0, 6.0] {
        s.apply(&EditOp::Magnitude {
            joint: "j4".into(),
            c,
        })
        .expect("magnitude");
        let now = s.welded_rows().to_vec();
        let t = total(&now);
        assert!(t > last, "sum of w4 did not rise at c = {c}: {t} <= {last}");
        let w = |r: &[(u32, f64)]| r.iter().find(|e| e.0 == 4).map_or(0.0, |e| e.1);
        let worst = prev
            .iter()
            .zip(&now)
            .map(|(a, b)| w(a) - w(b))
            .fold(0.0, f64::max);
        assert!(worst < 2.0 * s.eps(), "w4 fell by {worst} at c = {c}");
        last = t;
        prev = now;
    }
}

#[test]
fn smoothness_spreads_the_falloff_and_keeps_partition_of_unity() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let base = s.welded_rows().to_vec();
    s.apply(&EditOp::Smoothness {
        joint: "j4".into(),
        b: 0.0,
    })
    .expect("b = 0");
    assert!(max_diff(&base, s.welded_rows()) < 1e-9, "b = 0 is Eq. 1");
    let middle = |rows: &[Vec<(u32, f64)>]| {
        rows.iter()
            .flatten()
            .filter(|e| e.0 == 4 && e.1 > 0.05 && e.1 < 0.95)
            .count()
    };
    let m0 = middle(s.welded_rows());
    let mut counts = vec![m0];
    for b in [0.25, 0.5, 0.75] {
        let mut g = s.clone();
        g.apply(&EditOp::Smoothness {
            joint: "j4".into(),
            b,
        })
        .expect("smoothness solves (SPD)");
        g.global().expect("global with b");
        assert_unity(g.welded_rows());
        counts.push(middle(g.welded_rows()));
    }
    eprintln!("vertices with 0.05 < w4 < 0.95 for b = 0, .25, .5, .75: {counts:?}");
    assert!(
        counts[3] > counts[0],
        "b = 0.75 did not widen the falloff: {counts:?}"
    );
    assert!(s
        .apply(&EditOp::Smoothness {
            joint: "j4".into(),
            b: 1.0
        })
        .is_err());
}

#[test]
fn a_handle_dragged_along_the_bone_widens_the_support() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let support = |s: &Session, j: u32| {
        s.welded_rows()
            .iter()
            .filter(|r| r.iter().any(|e| e.0 == j && e.1 > 0.5))
            .count()
    };
    let (j, before) = (4u32, support(&s, 4));
    let joints_before = s.joints.clone();
    // Pull j5's handle further along the bone j4 → j5: j4's bone reaches further up.
    s.apply(&EditOp::Handle {
        joint: "j5".into(),
        offset: [0.0, 0.4, 0.0],
    })
    .expect("handle");
    let after = support(&s, j);
    assert!(after > before, "support of j4 {before} → {after}");
    assert_eq!(
        s.joints, joints_before,
        "the animation skeleton must not move"
    );
    assert_unity(s.welded_rows());
}

#[test]
fn align_and_reroot_run_and_keep_partition_of_unity() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    s.apply(&mv("j3", [0.1, 3.0, 0.0])).expect("bend");
    s.apply(&mv("j5", [0.05, 4.8, 0.08])).expect("bend");
    let out = s
        .apply(&EditOp::Align {
            joints: ["j2", "j3", "j4", "j5", "j6"].map(String::from).to_vec(),
        })
        .expect("align");
    assert!(out.up.is_some());
    assert_eq!(s.joints[2].position, joints()[2].position);
    assert_unity(s.welded_rows());
    let out = s
        .apply(&EditOp::Reroot { joint: "j4".into() })
        .expect("reroot");
    assert!(out.global);
    assert_eq!(s.joints[0].name, "j4");
    assert_unity(s.welded_rows());
}

#[test]
fn a_sidecar_replays_and_reports_what_no_longer_applies() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut live = session(&f.mesh, &sdf);
    let ops = vec![
        mv("j4", [0.1, 3.9, 0.0]),
        EditOp::InsertJoint {
            child: "j6".into(),
            at: 0.4,
            name: "j56".into(),
        },
        EditOp::Magnitude {
            joint: "j2".into(),
            c: 2.0,
        },
        mv("ghost", [0.0, 1.0, 0.0]),
    ];
    for op in &ops[..3] {
        live.apply(op).expect("edit");
    }
    live.global().expect("refresh");
    let mut log = EditLog {
        version: VERSION,
        edits: Vec::new(),
    };
    log.push_compacted(&ops);
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("tube.edits.yaml");
    log.save(&path).expect("save");
    let back =
        EditLog::parse(&std::fs::read_to_string(&path).expect("read"), &path).expect("parse");
    assert_eq!(back, log);
    let mut fresh = session(&f.mesh, &sdf);
    let skipped = replay(&mut fresh, &back.edits).expect("replay");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0].contains("ghost"), "{skipped:?}");
    assert_eq!(fresh.joints, live.joints);
    let d = max_diff(fresh.welded_rows(), live.welded_rows());
    assert!(
        d < 1e-9,
        "replay differs from the live session's global refresh by {d}"
    );
}

/// Same input, same output whatever the thread count (house rule): a drag, a smoothness edit
/// (its own factorization group) and an insertion on a tube large enough that every parallel
/// phase of the local re-solve splits its work, run in a one-thread and a two-thread pool, give
/// the same weights and raw solutions bit for bit.
#[test]
fn edits_are_bit_identical_with_one_and_two_threads() {
    let f = Fixture::with(32, 400);
    let (mesh, sdf) = (&f.mesh, sdf_of(&f.mesh));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut s = session(mesh, &sdf);
            let j4 = joints()[4].position;
            let mut regions = Vec::new();
            for step in 1..=3 {
                let to = [0.04 * step as f64, j4[1], 0.0];
                regions.push(s.apply(&mv("j4", to)).expect("move").region);
            }
            s.apply(&EditOp::Smoothness {
                joint: "j2".into(),
                b: 0.3,
            })
            .expect("smoothness");
            s.apply(&EditOp::InsertJoint {
                child: "j6".into(),
                at: 0.5,
                name: "j56".into(),
            })
            .expect("insert");
            let bits = |rows: &[Vec<(u32, f64)>]| -> Vec<Vec<(u32, u64)>> {
                rows.iter()
                    .map(|r| r.iter().map(|e| (e.0, e.1.to_bits())).collect())
                    .collect()
            };
            (regions, bits(s.welded_rows()), bits(s.raw_rows()))
        })
    };
    let (one, two) = (run(1), run(2));
    // The drag's region must be big enough to split the parallel work (2 048 rows per task).
    assert!(one.0[0] > 4096, "drag region {} too small", one.0[0]);
    assert_eq!(one.0, two.0, "regions differ between 1 and 2 threads");
    assert!(one.1 == two.1, "weights differ between 1 and 2 threads");
    assert!(
        one.2 == two.2,
        "raw solutions differ between 1 and 2 threads"
    );
}
