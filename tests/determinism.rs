//! Same input, same output (issue 8 §1): the real binary rigs the corpus meshes whose search is
//! hardest with one and with two rayon threads, and once more while busy threads load the machine;
//! rig.json (joints, status, warnings, skin, templates tried — everything but the timings) must be
//! identical bit for bit. The search budget is counted in penalty evaluations, so neither the thread
//! count nor the machine's load may change a result.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The hardest searches of the corpus (most expansions or a budget hit), with their templates.
/// `auto` exercises the template chooser and the 24-orientation screening too.
const HARD: [(&str, &str); 6] = [
    ("turtle", "quadruped"),
    ("sydney", "human"),
    ("brainstem", "human"),
    ("spider_parts", "human"),
    ("rignet_8338", "quadruped"),
    ("sydney", "auto"),
];

/// rig.json as a JSON value without `timings_ms` (the only field allowed to differ).
fn rig_json(mesh: &Path, skeleton: &str, threads: &str, out: &Path) -> serde_json::Value {
    let status = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["rig", "--skeleton", skeleton, "--format", "json", "--out"])
        .arg(out)
        .arg(mesh)
        .env("RAYON_NUM_THREADS", threads)
        .status()
        .expect("run geppetto");
    assert!(status.success(), "{}: geppetto rig failed", mesh.display());
    let name = mesh.file_stem().unwrap().to_string_lossy();
    let text = std::fs::read_to_string(out.join(format!("{name}.rig.json"))).expect("rig.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("rig.json parses");
    v.as_object_mut().expect("object").remove("timings_ms");
    v
}

/// Spin `n` threads until the returned flag is cleared.
fn load_machine(n: usize) -> (Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>) {
    let on = Arc::new(AtomicBool::new(true));
    let handles = (0..n)
        .map(|_| {
            let on = on.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while on.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    (on, handles)
}

#[test]
fn hard_meshes_rig_identically_across_threads_and_load() {
    let Some(corpus) = common::corpus() else {
        assert!(
            std::env::var_os("GEPPETTO_REQUIRE_CORPUS").is_none(),
            "GEPPETTO_REQUIRE_CORPUS is set but the corpus is missing"
        );
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    for (name, skeleton) in HARD {
        let mesh = corpus.join("meshes").join(format!("{name}.obj"));
        let one = rig_json(&mesh, skeleton, "1", &tmp.path().join("one"));
        let two = rig_json(&mesh, skeleton, "2", &tmp.path().join("two"));
        assert!(one == two, "{name} ({skeleton}): 1 vs 2 threads differ");
        let (on, busy) = load_machine(4);
        let loaded = rig_json(&mesh, skeleton, "2", &tmp.path().join("loaded"));
        on.store(false, Ordering::Relaxed);
        busy.into_iter()
            .for_each(|h| h.join().expect("busy thread"));
        assert!(
            one == loaded,
            "{name} ({skeleton}): result changed under load"
        );
        let warnings = one["warnings"].as_array().map_or(0, Vec::len);
        assert!(
            !one["warnings"].to_string().contains("safety time limit"),
            "{name}: the wall-clock safety cap fired ({warnings} warnings)"
        );
    }
}

/// rig.json under `dir` for `name`, without the timings and the mesh path (the watcher records
/// the path it found, the CLI the one it was given).
fn rig_json_at(dir: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(format!("{name}.rig.json"))).expect("rig.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("rig.json parses");
    let o = v.as_object_mut().expect("object");
    o.remove("timings_ms");
    o.remove("mesh");
    v
}

/// The watcher and the CLI are one pipeline: `watch --headless --once` writes the same rig as
/// `rig` (defaults: `--skeleton auto`), and `rig -j 1` the same as `rig -j 2`.
#[test]
fn watch_and_cli_and_job_counts_agree() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let assets = tmp.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    let names = ["sydney", "fox"];
    for n in names {
        let from = corpus.join("meshes").join(format!("{n}.obj"));
        std::fs::copy(&from, assets.join(format!("{n}.obj"))).expect("copy mesh");
    }
    let bin = env!("CARGO_BIN_EXE_geppetto");
    let watch = Command::new(bin)
        .args(["watch", "--headless", "--once"])
        .arg(&assets)
        .status()
        .expect("run geppetto watch");
    assert!(watch.success(), "geppetto watch --once failed");
    for jobs in ["1", "2"] {
        let out = tmp.path().join(format!("cli{jobs}"));
        let mut cmd = Command::new(bin);
        cmd.args(["rig", "-j", jobs, "--format", "json", "--out"])
            .arg(&out);
        for n in names {
            cmd.arg(assets.join(format!("{n}.obj")));
        }
        assert!(cmd.status().expect("run geppetto rig").success());
        for n in names {
            let cli = rig_json_at(&out, n);
            let watched = rig_json_at(&assets.join("rigged"), n);
            assert!(cli == watched, "{n}: watch and rig -j {jobs} differ");
        }
    }
}
