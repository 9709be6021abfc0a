//! Shared helpers for integration tests: locating the shared corpus and reading its manifest.
#![allow(dead_code)]

use std::path::PathBuf;

/// The corpus folder: `$GEPPETTO_CORPUS`, else `../shared/corpus` beside the repository.
/// `None` (with a printed reason) if it is absent, so corpus tests report themselves skipped.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GEPPETTO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "{test}: skipped: corpus not found at {} (set GEPPETTO_CORPUS)",
            dir.display()
        );
        None
    }
}

/// One row of `MANIFEST.tsv`.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Mesh name (file stem).
    pub name: String,
    /// biped, quadruped, other, multi-component.
    pub category: String,
    /// yes / no / joints-only.
    pub has_truth: String,
}

/// Read the manifest's rows.
pub fn manifest(corpus: &std::path::Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).expect("MANIFEST.tsv readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| *h == n)
            .expect("manifest column")
    };
    let (ni, ci, ti) = (col("name"), col("category"), col("has_truth"));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Entry {
                name: f[ni].into(),
                category: f[ci].into(),
                has_truth: f[ti].into(),
            }
        })
        .collect()
}
