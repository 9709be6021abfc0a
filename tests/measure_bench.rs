//! `geppetto bench` on a tiny generated corpus: manifest parsing, filtering, child runs that may
//! fail without stopping the bench, the summary logic, and `--json`. No timing assertions.

mod measure_support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use geppetto::measure::bench::{self, summarize, BenchOptions, MeshResult};
use geppetto::measure::joints::JointMeasures;

/// A closed box (8 vertices, 12 triangles) scaled by `s`.
fn box_obj(s: f64) -> String {
    let positions = (0..8)
        .map(|i| {
            let (x, y, z) = (i & 1, (i >> 1) & 1, (i >> 2) & 1);
            geppetto::geom::P3::new(
                f64::from(x) * s * 0.4,
                f64::from(y) * s,
                f64::from(z) * s * 0.3,
            )
        })
        .collect();
    let triangles = [
        [1, 3, 4],
        [1, 4, 2],
        [5, 6, 8],
        [5, 8, 7],
        [1, 2, 6],
        [1, 6, 5],
        [3, 7, 8],
        [3, 8, 4],
        [1, 5, 7],
        [1, 7, 3],
        [2, 4, 8],
        [2, 8, 6],
    ]
    .iter()
    .map(|f: &[u32; 3]| f.map(|v| v - 1))
    .collect();
    geppetto::mesh::write::obj_string(&geppetto::mesh::Mesh {
        positions,
        triangles,
    })
}

fn mini_corpus(dir: &Path) {
    std::fs::create_dir_all(dir.join("meshes")).expect("mkdir");
    std::fs::create_dir_all(dir.join("truth")).expect("mkdir");
    std::fs::write(
        dir.join("MANIFEST.tsv"),
        "name\tvertices\ttriangles\tconnected_components\twatertight\tcategory\thas_truth\n\
         tall\t8\t12\t1\tyes\tbiped\tyes\n\
         wide\t8\t12\t1\tyes\tquadruped\tno\n\
         other_box\t8\t12\t1\tyes\tother\tno\n",
    )
    .expect("manifest");
    for (name, s) in [("tall", 2.0), ("wide", 1.0), ("other_box", 0.5)] {
        std::fs::write(dir.join("meshes").join(format!("{name}.obj")), box_obj(s)).expect("obj");
    }
    let truth = r#"{"joint_names":["root","top"],"parents":[-1,0],
        "joint_positions":[[0.4,0.2,0.3],[0.4,1.8,0.3]],
        "skin_joints":[[0,-1,-1,-1],[0,-1,-1,-1],[1,-1,-1,-1],[1,-1,-1,-1],[0,-1,-1,-1],[0,-1,-1,-1],[1,-1,-1,-1],[1,-1,-1,-1]],
        "skin_weights":[[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0]]}"#;
    std::fs::write(dir.join("truth/tall.json"), truth).expect("truth");
}

fn opts(corpus: &Path, filter: Option<&str>) -> BenchOptions {
    BenchOptions {
        exe: env!("CARGO_BIN_EXE_geppetto").into(),
        corpus: corpus.to_path_buf(),
        runs: 2,
        filter: filter.map(str::to_string),
        config: None,
        timeout: Duration::from_secs(120),
        verbose: false,
    }
}

#[test]
fn bench_runs_a_mini_corpus_and_filters() {
    let dir = tempfile::tempdir().expect("tempdir");
    mini_corpus(dir.path());
    let all = bench::run(&opts(dir.path(), None)).expect("bench");
    let names: Vec<&str> = all.meshes.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["tall", "wide", "other_box"]);
    let skel: Vec<&str> = all.meshes.iter().map(|m| m.skeleton.as_str()).collect();
    assert_eq!(skel, ["human", "quadruped", "human"]);
    for m in &all.meshes {
        assert_eq!(m.runs, 2);
        // Every run is measured whether or not the engine could rig a box.
        assert!(m.wall_ms.is_some_and(|w| w > 0.0), "{m:?}");
        assert!(m.peak_rss_mb.is_some_and(|r| r > 0.0), "{m:?}");
        match m.status.as_str() {
            "failed" => assert!(m.ok_runs == 0 && m.error.is_some(), "{m:?}"),
            // A box is no biped, quadruped or anything else: it may rig, but never as `ok`.
            "low_confidence" => assert!(m.ok_runs > 0 && !m.stage_ms.is_empty(), "{m:?}"),
            s => panic!("{}: status {s} for a box rigged as {}", m.name, m.skeleton),
        }
    }
    let s = &all.summary;
    assert_eq!(s.meshes_total, 3);
    assert_eq!(
        s.meshes_rigged,
        all.meshes.iter().filter(|m| m.status != "failed").count()
    );
    let one = bench::run(&opts(dir.path(), Some("w*"))).expect("bench");
    assert_eq!(one.meshes.len(), 1);
    assert_eq!(one.meshes[0].name, "wide");
    let none = bench::run(&opts(dir.path(), Some("nothing"))).expect("bench");
    assert!(none.meshes.is_empty() && none.summary.meshes_total == 0);
}

#[test]
fn bench_cli_writes_json_and_rejects_missing_corpus() {
    let dir = tempfile::tempdir().expect("tempdir");
    mini_corpus(dir.path());
    let json = dir.path().join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["bench", "--runs", "1", "--filter", "tall", "--corpus"])
        .arg(dir.path())
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("meshes rigged:") && text.contains("/ 1"),
        "{text}"
    );
    assert!(
        text.contains("median CD-J2J") && text.contains("median skin deformation"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parse");
    assert_eq!(v["meshes"][0]["name"].as_str(), Some("tall"));
    assert_eq!(v["summary"]["meshes_total"].as_u64(), Some(1));
    let missing = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["bench", "--corpus", "/nonexistent-corpus"])
        .output()
        .expect("run");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no corpus at"));
}

fn result(name: &str, cat: &str, ok: bool, wall: f64, j2j: Option<f64>) -> MeshResult {
    MeshResult {
        name: name.into(),
        category: cat.into(),
        runs: 3,
        ok_runs: if ok { 3 } else { 0 },
        status: if ok { "ok".into() } else { "failed".into() },
        wall_ms: Some(wall),
        joints: j2j.map(|v| JointMeasures {
            cd_j2j: v,
            cd_j2b: v,
            cd_b2b: v,
            pred_joints: 1,
            truth_joints: 1,
            pred_bone_samples: 1,
            truth_bone_samples: 1,
        }),
        ..MeshResult::default()
    }
}

#[test]
fn summary_logic() {
    let mut lc = result("d", "biped", true, 4000.0, Some(5.0));
    lc.status = "low_confidence".into();
    let ms = vec![
        result("a", "biped", true, 1000.0, Some(2.0)),
        result("b", "biped", true, 3000.0, Some(4.0)),
        result("c", "quadruped", true, 2000.0, Some(7.0)),
        lc,
        result("e", "biped", false, 9000.0, None), // failed: not in times
        result("f", "other", true, 500.0, Some(100.0)), // other: not in the CD-J2J medians
    ];
    let s = summarize(&ms);
    assert_eq!(
        (s.meshes_total, s.meshes_rigged, s.low_confidence),
        (6, 5, 1)
    );
    assert_eq!(s.median_wall_ms, Some(2000.0));
    assert_eq!(
        (s.worst_wall_ms, s.worst_mesh.as_deref()),
        (Some(4000.0), Some("d"))
    );
    assert_eq!((s.median_cd_j2j_biped, s.bipeds_scored), (Some(4.0), 3));
    assert_eq!(
        (s.median_cd_j2j_quadruped, s.quadrupeds_scored),
        (Some(7.0), 1)
    );
    assert_eq!((s.median_skin_deform_pct, s.skins_scored), (None, 0));
}

/// The CI invocation (`geppetto bench --filter fox --runs 1`) on the shared corpus.
#[test]
fn bench_ci_path_on_the_corpus() {
    let Some(dir) = measure_support::corpus() else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["bench", "--filter", "fox", "--runs", "1", "--corpus"])
        .arg(&dir)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("meshes rigged:") && text.contains("/ 1"),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("fox ")), "{text}");
}
