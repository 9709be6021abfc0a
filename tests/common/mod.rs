//! Shared helpers for integration tests: locating the shared corpus and reading its manifest.
#![allow(dead_code)]

use std::path::PathBuf;

/// The corpus folder: `$GEPPETTO_CORPUS`, else `../shared/corpus` beside the repository.
/// `None` (with a printed reason naming the running test) if it is absent, so corpus tests report
/// themselves skipped.
pub fn corpus() -> Option<PathBuf> {
    let test = std::thread::current()
        .name()
        .unwrap_or("corpus test")
        .to_string();
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

/// `(name, category)` per `MANIFEST.tsv` row, read with the library's manifest reader.
pub fn manifest(dir: &std::path::Path) -> Vec<(String, String)> {
    geppetto::measure::bench::manifest::read(dir)
        .expect("MANIFEST.tsv parses")
        .into_iter()
        .map(|e| (e.name, e.category))
        .collect()
}
