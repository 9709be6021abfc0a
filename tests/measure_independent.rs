//! `score` against the independent pure-Python implementation (tests/independent_score.py) of the
//! same README definitions: they must agree to 1e-6 on corpus truth files vs perturbed copies,
//! synthetic rigs, and skins under explicit poses (written to JSON so both use the same poses).

mod measure_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use geppetto::geom::{Aabb, P3};
use geppetto::measure::pose::{random_poses, Pose};
use geppetto::measure::score::score_rigs;
use geppetto::measure::truth::{self, Weights};
use geppetto::rig::{Rig, RigJoint, SkinTable};
use measure_support::{corpus, obj_vertices, write_obj, Lcg};
use serde_json::{json, Value};

const TOL: f64 = 1e-6;

fn python() -> Option<&'static str> {
    measure_support::tool(
        "python3",
        &["--version"],
        "it runs tests/independent_score.py",
    )
    .then_some("python3")
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent_score.py")
}

/// Run both implementations on the same files and compare every measure.
fn agree(
    py: &str,
    pred: &Path,
    truth_path: &Path,
    mesh: &Path,
    poses: &[Pose],
    dir: &Path,
) -> Value {
    let poses_path = dir.join("poses.json");
    let rows: Vec<Vec<Vec<[f64; 3]>>> = poses
        .iter()
        .map(|p| {
            p.rotations
                .iter()
                .map(|q| {
                    let m = q.to_rotation_matrix();
                    (0..3).map(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]]).collect()
                })
                .collect()
        })
        .collect();
    std::fs::write(&poses_path, json!({ "poses": rows }).to_string()).expect("poses");
    let out = Command::new(py)
        .arg(script())
        .args([pred, truth_path])
        .arg("--mesh")
        .arg(mesh)
        .arg("--poses")
        .arg(&poses_path)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).expect("python json");

    let p = truth::load(pred).expect("pred");
    let t = truth::load(truth_path).expect("truth");
    let verts = obj_vertices(mesh);
    let extent = Aabb::of_points(&verts).max_extent();
    let (j, s, _) = score_rigs(&p, &t, extent, Some(&verts), poses).expect("score");
    let ours = json!({
        "cd_j2j": j.cd_j2j, "cd_j2b": j.cd_j2b, "cd_b2b": j.cd_b2b,
        "skin": s.map(|s| json!({
            "l1_mean": s.l1_mean, "precision": s.precision, "recall": s.recall,
            "deform_mean_pct": s.deform_mean_pct, "deform_p95_pct": s.deform_p95_pct,
        })),
    });
    compare(
        &ours,
        &theirs,
        &format!("{} vs {}", pred.display(), truth_path.display()),
    );
    ours
}

fn compare(a: &Value, b: &Value, what: &str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                compare(v, y.get(k).unwrap_or(&Value::Null), &format!("{what}: {k}"));
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            assert!((x - y).abs() <= TOL, "{what}: rust {x} vs python {y}");
        }
        _ => assert_eq!(a, b, "{what}"),
    }
}

/// A truth-format file (top-4 influences padded with -1 / 0).
fn write_truth(
    path: &Path,
    names: &[String],
    parents: &[Option<usize>],
    pos: &[P3],
    skin: Option<&Weights>,
) {
    let (sj, sw): (Vec<Vec<i64>>, Vec<Vec<f64>>) = skin
        .map(|w| {
            w.iter()
                .map(|row| {
                    let mut j: Vec<i64> = row.iter().map(|(j, _)| *j as i64).collect();
                    let mut x: Vec<f64> = row.iter().map(|(_, w)| *w).collect();
                    j.resize(4, -1);
                    x.resize(4, 0.0);
                    (j, x)
                })
                .unzip()
        })
        .unwrap_or_default();
    let v = json!({
        "joint_names": names,
        "parents": parents.iter().map(|p| p.map_or(-1, |p| p as i64)).collect::<Vec<_>>(),
        "joint_positions": pos.iter().map(|p| [p.x, p.y, p.z]).collect::<Vec<_>>(),
        "skin_joints": skin.map(|_| sj), "skin_weights": skin.map(|_| sw),
    });
    std::fs::write(path, v.to_string()).expect("write truth");
}

/// Each vertex's weights jittered, sometimes moved to a random joint, renormalized, ≤ 4 kept.
fn perturb_weights(w: &Weights, joints: usize, rng: &mut Lcg) -> Weights {
    w.iter()
        .map(|row| {
            let mut r: Vec<(usize, f64)> = row
                .iter()
                .map(|(j, x)| (*j, x * (0.5 + rng.next())))
                .collect();
            if rng.next() < 0.5 {
                r.push((
                    (rng.next() * joints as f64) as usize % joints,
                    0.02 + 0.3 * rng.next(),
                ));
            }
            r.sort_by(|a, b| b.1.total_cmp(&a.1));
            r.dedup_by_key(|e| e.0);
            r.truncate(4);
            let s: f64 = r.iter().map(|e| e.1).sum();
            r.iter().map(|(j, x)| (*j, x / s)).collect()
        })
        .collect()
}

#[test]
fn agrees_on_corpus_truth_vs_perturbed_copies() {
    let (Some(py), Some(corpus)) = (python(), corpus()) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Lcg(11);
    for name in ["fox", "riggedfigure", "bob_lamp"] {
        let tpath = corpus.join("truth").join(format!("{name}.json"));
        let mesh = corpus.join("meshes").join(format!("{name}.obj"));
        let t = truth::load(&tpath).expect("truth");
        let extent = Aabb::of_points(&obj_vertices(&mesh)).max_extent();
        let poses = random_poses(t.positions.len(), 4, 5, 30.0);
        // Large joint perturbation (±2% of extent): joint measures only, skin skipped by both.
        let far: Vec<P3> = t
            .positions
            .iter()
            .map(|p| {
                p + (nalgebra::Vector3::new(rng.next(), rng.next(), rng.next()) * 2.0
                    - nalgebra::Vector3::repeat(1.0))
                    * 0.02
                    * extent
            })
            .collect();
        let p1 = dir.path().join(format!("{name}-far.json"));
        write_truth(&p1, &t.names, &t.parents, &far, t.skin.as_ref());
        let v = agree(py, &p1, &tpath, &mesh, &poses, dir.path());
        assert!(
            v["skin"].is_null() && v["cd_j2j"].as_f64().unwrap_or(0.0) > 0.0,
            "{v}"
        );
        // Tiny joint jitter (0.02% of extent) and perturbed weights: every measure.
        let near: Vec<P3> = t
            .positions
            .iter()
            .map(|p| {
                p + nalgebra::Vector3::new(rng.next(), rng.next(), rng.next()) * 0.0002 * extent
            })
            .collect();
        let w = perturb_weights(t.skin.as_ref().expect("skin"), t.positions.len(), &mut rng);
        let p2 = dir.path().join(format!("{name}-near.json"));
        write_truth(&p2, &t.names, &t.parents, &near, Some(&w));
        let v = agree(py, &p2, &tpath, &mesh, &poses, dir.path());
        assert!(
            v["skin"]["deform_mean_pct"].as_f64().unwrap_or(0.0) > 0.0,
            "{v}"
        );
    }
}

/// A random tree of `n` joints in a box of side `size`.
fn random_tree(n: usize, size: f64, rng: &mut Lcg) -> (Vec<P3>, Vec<Option<usize>>) {
    let pos = (0..n)
        .map(|_| {
            P3::new(
                rng.next() * size,
                rng.next() * size,
                rng.next() * size * 0.3,
            )
        })
        .collect();
    let par = (0..n)
        .map(|i| (i > 0).then(|| (rng.next() * i as f64) as usize % i))
        .collect();
    (pos, par)
}

fn write_rig_json(
    path: &Path,
    pos: &[P3],
    par: &[Option<usize>],
    skin: Option<SkinTable>,
    bbox: Aabb,
) {
    let rig = Rig {
        mesh: "synthetic.obj".into(),
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
        bbox: [bbox.min.into(), bbox.max.into()],
        skin,
        ..Rig::default()
    };
    std::fs::write(path, rig.to_json()).expect("write rig");
}

#[test]
fn agrees_on_synthetic_rigs() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Lcg(3);
    let verts: Vec<P3> = (0..50)
        .map(|_| P3::new(rng.next() * 7.0 - 1.0, rng.next() * 3.0, rng.next() * 2.0))
        .collect();
    let mesh = dir.path().join("synthetic.obj");
    write_obj(&mesh, &verts);
    let bbox = Aabb::of_points(&verts);
    for (k, (np, nt)) in [(5, 8), (17, 23), (1, 6), (30, 2)].into_iter().enumerate() {
        let (pp, ppar) = random_tree(np, 5.0, &mut rng);
        let (tp, tpar) = random_tree(nt, 5.0, &mut rng);
        let pred = dir.path().join(format!("pred{k}.rig.json"));
        write_rig_json(&pred, &pp, &ppar, None, bbox);
        let tru = dir.path().join(format!("truth{k}.json"));
        let names: Vec<String> = (0..nt).map(|i| format!("t{i}")).collect();
        write_truth(&tru, &names, &tpar, &tp, None);
        agree(py, &pred, &tru, &mesh, &[], dir.path());
    }
}

#[test]
fn agrees_on_skins_under_explicit_poses() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Lcg(99);
    let verts: Vec<P3> = (0..200)
        .map(|_| P3::new(rng.next() * 4.0, rng.next() * 10.0, rng.next() * 2.0))
        .collect();
    let mesh = dir.path().join("skinned.obj");
    write_obj(&mesh, &verts);
    let bbox = Aabb::of_points(&verts);
    let (pos, par) = random_tree(12, 8.0, &mut rng);
    let random_skin = |rng: &mut Lcg| -> Weights {
        (0..verts.len())
            .map(|_| {
                let k = 1 + (rng.next() * 4.0) as usize;
                let mut r: Vec<(usize, f64)> = (0..k)
                    .map(|_| ((rng.next() * 12.0) as usize % 12, 0.01 + rng.next()))
                    .collect();
                r.sort_by_key(|e| e.0);
                r.dedup_by_key(|e| e.0);
                let s: f64 = r.iter().map(|e| e.1).sum();
                r.iter().map(|(j, w)| (*j, w / s)).collect()
            })
            .collect()
    };
    let (wp, wt) = (random_skin(&mut rng), random_skin(&mut rng));
    let pred = dir.path().join("pred.rig.json");
    let table: SkinTable = wp
        .iter()
        .map(|r| r.iter().map(|(j, w)| (*j as u32, *w)).collect())
        .collect();
    write_rig_json(&pred, &pos, &par, Some(table), bbox);
    let tru = dir.path().join("truth.json");
    let names: Vec<String> = (0..12).map(|i| format!("j{i}")).collect();
    write_truth(&tru, &names, &par, &pos, Some(&wt));
    for (count, seed) in [(1, 1), (7, 2), (20, 3)] {
        let poses = random_poses(12, count, seed, 30.0);
        let v = agree(py, &pred, &tru, &mesh, &poses, dir.path());
        assert!(v["skin"]["l1_mean"].as_f64().unwrap_or(0.0) > 0.1, "{v}");
    }
}
