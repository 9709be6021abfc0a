//! The corpus `MANIFEST.tsv`: one row per mesh, tab-separated, with a header row naming the columns
//! (`name`, `vertices`, `triangles`, `category`, `has_truth`, …; order free, extra columns ignored).

use std::path::{Path, PathBuf};

use super::super::MeasureError;

/// One corpus mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Mesh name (`meshes/NAME.obj`, `truth/NAME.json`).
    pub name: String,
    /// `biped`, `quadruped`, `other`, `multi-component`, …
    pub category: String,
    /// Vertex count as listed (0 if missing).
    pub vertices: usize,
    /// Triangle count as listed (0 if missing).
    pub triangles: usize,
    /// `yes`, `no`, `joints-only`.
    pub has_truth: String,
    /// Skeleton template to rig it with (see [`skeleton_for`]; a `skeleton` column overrides).
    pub skeleton: String,
}

/// The template a manifest category suggests (pinned down here): `biped` → `human`,
/// `quadruped` → `quadruped`; every other category (`other`: fish, octopus, hand, scorpion, bird;
/// `multi-component`: the BrainStem robot biped and an 8-legged spider) → `human`, the template the
/// original was built around; no template fits those creatures, they are in the bench for
/// robustness and timing, and the confidence check is expected to flag them.
pub fn skeleton_for(category: &str) -> &'static str {
    match category {
        "quadruped" => "quadruped",
        _ => "human",
    }
}

/// Parse the manifest text. `path` is only used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Entry>, MeasureError> {
    let err = |message: String| MeasureError::Input {
        path: path.display().to_string(),
        message,
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| err("empty manifest".into()))?
        .split('\t')
        .map(str::trim)
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let name_col = col("name").ok_or_else(|| err("no 'name' column".into()))?;
    let (cat, verts, tris, truth, skel) = (
        col("category"),
        col("vertices"),
        col("triangles"),
        col("has_truth"),
        col("skeleton"),
    );
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split('\t').map(str::trim).collect();
        let get = |c: Option<usize>| c.and_then(|c| cells.get(c)).copied().unwrap_or("");
        let name = get(Some(name_col));
        if name.is_empty() {
            return Err(err(format!("row {}: empty name", i + 2)));
        }
        let category = get(cat).to_string();
        let skeleton = match get(skel) {
            "" => skeleton_for(&category).to_string(),
            s => s.to_string(),
        };
        out.push(Entry {
            name: name.to_string(),
            vertices: get(verts).parse().unwrap_or(0),
            triangles: get(tris).parse().unwrap_or(0),
            has_truth: get(truth).to_string(),
            category,
            skeleton,
        });
    }
    Ok(out)
}

/// Read `DIR/MANIFEST.tsv`.
pub fn read(corpus: &Path) -> Result<Vec<Entry>, MeasureError> {
    let path = corpus.join("MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).map_err(|e| MeasureError::Input {
        path: path.display().to_string(),
        message: format!("cannot read the corpus manifest: {e}"),
    })?;
    parse(&text, &path)
}

/// The mesh file of an entry: `meshes/NAME.obj`, else the first `meshes/NAME.*`.
pub fn mesh_path(corpus: &Path, name: &str) -> PathBuf {
    let obj = corpus.join("meshes").join(format!("{name}.obj"));
    if obj.is_file() {
        return obj;
    }
    let found = std::fs::read_dir(corpus.join("meshes"))
        .ok()
        .and_then(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .find(|p| p.file_stem().is_some_and(|s| s == name))
        });
    found.unwrap_or(obj)
}

/// The truth file of an entry, if present.
pub fn truth_path(corpus: &Path, name: &str) -> Option<PathBuf> {
    let p = corpus.join("truth").join(format!("{name}.json"));
    p.is_file().then_some(p)
}

/// Shell-style match of `name` against `pattern` ([`crate::glob::Glob`]: `*` any run, `?` one
/// character, case-insensitive); a comma separates alternatives (`fox,monster`, `rignet_*`).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    pattern
        .split(',')
        .any(|p| crate::glob::Glob::new(p.trim()).matches(Path::new(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("fox", "fox"));
        assert!(!glob_match("fox", "foxy"));
        assert!(glob_match("rignet_*", "rignet_8330"));
        assert!(glob_match("*o*", "monster"));
        assert!(glob_match("h?rse_*", "horse_md2"));
        assert!(glob_match("cow_igl,fox", "fox"));
        assert!(!glob_match("*x", "foxy"));
        assert!(glob_match("*", "x"));
        assert!(glob_match("FOX", "fox"));
    }

    #[test]
    fn parses_columns_by_name() {
        let text = "name\tvertices\ttriangles\tcategory\thas_truth\n\
                    a\t10\t16\tbiped\tyes\nb\t8\t12\tother\tno\n";
        let e = parse(text, Path::new("M")).unwrap_or_default();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].skeleton.as_str(), e[0].vertices), ("human", 10));
        assert_eq!(e[1].has_truth, "no");
        let q = parse("category\tname\nquadruped\tq\n", Path::new("M")).unwrap_or_default();
        assert_eq!(q[0].skeleton, "quadruped");
        assert!(parse("vertices\n3\n", Path::new("M")).is_err());
    }
}
