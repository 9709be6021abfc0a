//! Issue 2's corpus walk: every corpus mesh rigs with the skeleton its category suggests, or fails
//! with a clear reason naming the file — never a panic or a hang. The whole pipeline runs (skin
//! included), outputs are written and read back.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use geppetto::export::{write_outputs, Format};
use geppetto::measure::bench::manifest;
use geppetto::rig::Rig;
use geppetto::{skeleton, NoProgress, Pipeline, RigRequest};

/// A rig that takes longer than this in the test profile counts as a hang.
const PER_MESH_LIMIT: Duration = Duration::from_secs(240);

fn rig_one(mesh: PathBuf, skel: &str, out: PathBuf) -> Result<Rig, String> {
    let skeleton = Arc::new(skeleton::load_template(skel).map_err(|e| e.to_string())?);
    let pipeline = Pipeline::default();
    let req = RigRequest::with_sidecar(&mesh, skeleton).map_err(|e| e.to_string())?;
    let outcome = pipeline.rig(&req, &NoProgress).map_err(|e| e.to_string())?;
    let written =
        write_outputs(&outcome, &out, &[Format::Json, Format::Glb]).map_err(|e| e.to_string())?;
    let json = written
        .iter()
        .find(|p| p.to_string_lossy().ends_with(".rig.json"))
        .ok_or("no rig.json")?;
    let back = Rig::load(json).map_err(|e| e.to_string())?;
    assert_eq!(
        back,
        outcome.rig,
        "{}: rig.json does not read back to the same rig",
        mesh.display()
    );
    Ok(outcome.rig)
}

/// Run `rig_one` on a thread so a hang fails the test instead of stalling CI.
fn rig_with_limit(mesh: &Path, skel: &str, out: &Path) -> Result<Rig, String> {
    let (tx, rx) = mpsc::channel();
    let (m, s, o) = (mesh.to_path_buf(), skel.to_string(), out.to_path_buf());
    std::thread::spawn(move || {
        let _ = tx.send(rig_one(m, &s, o));
    });
    match rx.recv_timeout(PER_MESH_LIMIT) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{}: no result after {PER_MESH_LIMIT:?}", mesh.display())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{}: the rig thread panicked", mesh.display())
        }
    }
}

fn check_rig(name: &str, rig: &Rig) {
    assert!(!rig.joints.is_empty(), "{name}: no joints");
    for j in &rig.joints {
        assert!(
            j.position.iter().all(|c| c.is_finite()),
            "{name}: joint {} not finite",
            j.name
        );
    }
    let skin = rig
        .skin
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no skin weights"));
    assert_eq!(
        skin.len(),
        rig.vertex_count,
        "{name}: one weight list per input vertex"
    );
    for (v, row) in skin.iter().enumerate() {
        let sum: f64 = row.iter().map(|(_, w)| w).sum();
        assert!(
            (sum - 1.0).abs() < 1e-6,
            "{name}: vertex {v} weights sum to {sum}"
        );
        for (j, w) in row {
            assert!(
                w.is_finite() && *w > 0.0 && *w <= 1.0 + 1e-9,
                "{name}: vertex {v} weight {w}"
            );
            assert!(
                (*j as usize) < rig.joints.len(),
                "{name}: vertex {v} joint {j}"
            );
        }
    }
    if !rig.confidence_reasons.is_empty() {
        assert!(
            rig.confidence_reasons.iter().all(|r| !r.trim().is_empty()),
            "{name}: empty confidence reason"
        );
    }
}

#[test]
fn every_corpus_mesh_rigs_or_fails_clearly() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let entries = manifest::read(&corpus).expect("MANIFEST.tsv parses");
    let out = tempfile::tempdir().expect("temp dir");
    let (mut ok, mut low, mut failed) = (0, 0, Vec::new());
    for entry in &entries {
        let mesh = corpus.join("meshes").join(format!("{}.obj", entry.name));
        let skel = entry.skeleton.as_str();
        match rig_with_limit(&mesh, skel, out.path()) {
            Ok(rig) => {
                check_rig(&entry.name, &rig);
                match rig.status {
                    geppetto::rig::Status::Ok => ok += 1,
                    geppetto::rig::Status::LowConfidence => low += 1,
                }
                println!(
                    "{:<14} {:<10} {:?} {:?}",
                    entry.name, skel, rig.status, rig.confidence_reasons
                );
            }
            Err(msg) => {
                println!("{:<14} {:<10} FAILED: {msg}", entry.name, skel);
                assert!(
                    msg.contains(&entry.name),
                    "{}: a failure must name the file, got: {msg}",
                    entry.name
                );
                failed.push(entry.name.clone());
            }
        }
    }
    println!(
        "corpus: {ok} ok, {low} low confidence, {} failed {failed:?}",
        failed.len()
    );
    assert!(ok + low + failed.len() == entries.len());
    // Bipeds and quadrupeds are what the templates are for: none of them may fail outright.
    for entry in &entries {
        if matches!(entry.category.as_str(), "biped" | "quadruped") {
            assert!(
                !failed.contains(&entry.name),
                "{} ({}) failed to rig",
                entry.name,
                entry.category
            );
        }
    }
}
