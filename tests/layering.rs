//! The library's top-level modules form layers: a module may use only modules of lower layers.
//! This keeps the data flow one way (no import cycles between modules), keeps geometry stages free
//! of the skeleton embedding (discretize never uses embed), and keeps the library free of its front
//! ends (only `cli` uses `watch` and `tui`). Edges are every `crate::X` path in code (comments and
//! doc links are ignored), from each file of `src/X/` or `src/X.rs`, up to the file's inline unit-test
//! module (`#[cfg(test)]` then `mod tests {`, last in the file by the house convention): a unit test
//! is not part of the library's data flow and may build its fixture with a higher layer (a demo
//! character), as the integration tests under `tests/` do.

use std::collections::BTreeSet;
use std::path::Path;

/// Lowest first. A module may use modules of strictly lower layers.
const LAYERS: &[&[&str]] = &[
    &["geom", "util", "glob", "progress"],
    &["skeleton"],
    &["mesh"],
    &["discretize", "naming", "batch"],
    &["embed", "skin"],
    &["multipart"],
    &["rig", "edit"],
    &["confidence", "config", "error"],
    &["curveskel", "rechoose", "boxfig"],
    &["choose"],
    &["pipeline"],
    &["raster"],
    &["motion"],
    &["export"],
    // `bench --rerun` writes outputs the way the watcher does.
    &["measure", "demo"],
    &["learn"],
    &["watch"],
    &["tui"],
    &["cli"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Top-level modules named by `crate::X` in the code of `text` (comment lines skipped).
fn used_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split(" //").next().unwrap_or(code);
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::B, c};`: every first segment in the group.
                let group = group.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// `text` up to its inline unit-test module (`#[cfg(test)]` followed by a line `mod NAME {`).
fn library_part(text: &str) -> &str {
    let mut offset = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let inline_tests = line.trim() == "#[cfg(test)]"
            && lines.peek().is_some_and(|next| {
                let next = next.trim();
                next.starts_with("mod ") && next.ends_with('{')
            });
        if inline_tests {
            return &text[..offset];
        }
        offset += line.len() + 1;
    }
    text
}

/// `(name, module)` for each `pub use module::{Name, …};` line of lib.rs.
fn root_reexports(lib: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            out.push((name.trim().to_string(), module.to_string()));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn top_level_modules_are_layered() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "found only {} files in src/", files.len());
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let reexports = root_reexports(&lib);
    let mut violations = Vec::new();
    let mut edges = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("non-empty");
        let module = first.as_os_str().to_string_lossy();
        let module = module.trim_end_matches(".rs");
        if module == "main" || module == "lib" {
            continue;
        }
        let from = layer(module)
            .unwrap_or_else(|| panic!("src/{module}: not in LAYERS; add it to a layer"));
        let text = std::fs::read_to_string(file).expect("read");
        for used in used_modules(library_part(&text)) {
            // A name the crate root re-exports (`crate::RigError`) counts as its module.
            let used = reexports
                .iter()
                .find(|(name, _)| *name == used)
                .map_or(used, |(_, m)| m.clone());
            if used == module {
                continue;
            }
            edges += 1;
            match layer(&used) {
                Some(to) if to < from => {}
                _ => violations.push(format!("{} uses crate::{used}", rel.display())),
            }
        }
    }
    assert!(
        edges > 50,
        "only {edges} edges found: is the parser broken?"
    );
    assert!(
        violations.is_empty(),
        "imports against the layering (a module may use only lower layers):\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_parser_sees_grouped_and_inline_paths_but_not_comments() {
    let text = "use crate::{geom::P3, mesh};\n// crate::tui in a comment\n\
                let x = crate::skin::skin(a); // crate::watch\n/// [`crate::cli`]\n";
    let found: Vec<String> = used_modules(text).into_iter().collect();
    assert_eq!(found, ["geom", "mesh", "skin"]);
}
