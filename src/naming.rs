//! The names of the files that belong to a mesh: its outputs and its hints sidecar. One rule,
//! shared by `watch`, `demo`, `rig`, `attach` and the sidecar, so no two assets ever write (or
//! read) the same file.
//!
//! For a mesh `ROOT/REL/NAME.EXT` (ROOT: the watched folder, or for `rig` the deepest folder that
//! holds all the inputs), the outputs are `OUT/REL/NAME.rig.json`, `OUT/REL/NAME.glb`,
//! `OUT/REL/NAME.png`, …:
//!
//! * the output folder mirrors the mesh's folder relative to ROOT, so `a/hero.obj` and
//!   `b/hero.obj` write `OUT/a/hero.*` and `OUT/b/hero.*`;
//! * when the mesh's folder holds another mesh file with the same stem (`villain.obj` beside
//!   `villain.ply`), the extension joins the name: `villain.obj.*` and `villain.ply.*`. The same
//!   [`asset_name`] names the hints sidecar beside the mesh (`villain.obj.hints.yaml`).
//!
//! Two meshes can only share an output if they share folder and stem, and then both carry their
//! (different) extensions. A lone `hero.obj` keeps the plain `hero.*` names.

use std::path::{Component, Path, PathBuf};

use crate::mesh::load::MeshFormat;

/// The output location of one asset: files are `dir/name.SUFFIX`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutputBase {
    /// Folder the outputs go into.
    pub dir: PathBuf,
    /// File name before the output suffix (`hero`, or `villain.obj` when disambiguated).
    pub name: String,
}

impl OutputBase {
    /// The output file with `suffix` (`rig.json`, `glb`, `png`, `skeleton.out`, …).
    pub fn file(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}.{suffix}", self.name))
    }
}

/// The name of the files derived from `mesh`: its stem (`hero` for `hero.obj`), or its file name
/// (`villain.obj`) when another mesh file in the same folder has the same stem, or is named
/// exactly that stem (`hero.glb.obj` beside `hero.glb`: the stem `hero.glb` is the name `hero.glb`
/// takes beside a `hero.obj`, so both would write `hero.glb.glb`).
pub fn asset_name(mesh: &Path) -> String {
    if has_clashing_sibling(mesh) {
        file_name(mesh)
    } else {
        stem(mesh)
    }
}

/// The output location of `mesh` under `out_dir`, mirroring its folder relative to `root` (a mesh
/// outside `root` goes straight into `out_dir`), named by [`asset_name`].
pub fn output_base(mesh: &Path, root: &Path, out_dir: &Path) -> OutputBase {
    // Both sides absolute and without `.`/`..`: `rig x/a.obj y/a.obj` gets a relative mesh and
    // the absolute [`common_root`], and must still write `OUT/x/a.*` and `OUT/y/a.*`.
    let folder = absolute_lexical(mesh.parent().unwrap_or(Path::new("")));
    let root = absolute_lexical(root);
    let rel = folder.strip_prefix(&root).ok().filter(|r| is_plain(r));
    let dir = match rel {
        Some(r) => out_dir.join(r),
        None => out_dir.to_path_buf(),
    };
    OutputBase {
        dir,
        name: asset_name(mesh),
    }
}

/// The deepest folder holding every mesh in `meshes` (the ROOT of `geppetto rig`'s inputs).
/// Paths are made absolute first, so `hero.obj` and `./b/hero.obj` compare alike.
pub fn common_root(meshes: &[PathBuf]) -> PathBuf {
    let folders: Vec<PathBuf> = meshes
        .iter()
        .map(|m| {
            absolute_lexical(m)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        })
        .collect();
    let Some(first) = folders.first() else {
        return PathBuf::new();
    };
    let mut root = first.clone();
    for f in &folders[1..] {
        while !f.starts_with(&root) {
            if !root.pop() {
                return PathBuf::new();
            }
        }
    }
    root
}

/// `path` made absolute (against the current folder) with `.` and `..` resolved by name, so
/// that `x/../y` and `y` name one output folder. Lexical on purpose: names only decide where
/// outputs go, and a symlinked folder keeps its own name.
pub fn absolute_lexical(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path of plain folder names (no `..`, no root): safe to join under the output folder.
fn is_plain(rel: &Path) -> bool {
    rel.components().all(|c| matches!(c, Component::Normal(_)))
}

fn stem(mesh: &Path) -> String {
    mesh.file_stem()
        .map_or_else(|| "mesh".into(), |s| s.to_string_lossy().into_owned())
}

fn file_name(mesh: &Path) -> String {
    mesh.file_name()
        .map_or_else(|| "mesh".into(), |s| s.to_string_lossy().into_owned())
}

/// True when another mesh file in the same folder has the same stem, or a file name equal to
/// this mesh's stem. Either sibling could take this mesh's stem as its name; with the file name
/// as the name, no two meshes of a folder ever share a name: a stem-named mesh has no sibling
/// named (by stem or file name) like it, and two file names differ.
fn has_clashing_sibling(mesh: &Path) -> bool {
    let (Some(stem), Some(name)) = (mesh.file_stem(), mesh.file_name()) else {
        return false;
    };
    let folder = match mesh.parent() {
        Some(f) if !f.as_os_str().is_empty() => f,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    entries.flatten().any(|e| {
        let p = e.path();
        p.file_name() != Some(name)
            && (p.file_stem() == Some(stem) || p.file_name() == Some(stem))
            && MeshFormat::from_path(&p).is_some()
            && p.is_file()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"").unwrap();
    }

    #[test]
    fn five_same_named_assets_get_five_output_locations() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let meshes = [
            "a/hero.obj",
            "b/hero.obj",
            "hero.obj",
            "villain.obj",
            "villain.ply",
        ]
        .map(|m| root.join(m));
        for m in &meshes {
            touch(m);
        }
        touch(&root.join("villain.hints.yaml")); // not a mesh: no effect on names
        let out = root.join("rigged");
        let files: Vec<PathBuf> = meshes
            .iter()
            .map(|m| output_base(m, root, &out).file("rig.json"))
            .collect();
        let want = [
            "a/hero.rig.json",
            "b/hero.rig.json",
            "hero.rig.json",
            "villain.obj.rig.json",
            "villain.ply.rig.json",
        ]
        .map(|f| out.join(f));
        assert_eq!(files, want);
    }

    /// `hero.glb` beside `hero.obj` is named `hero.glb`; `hero.glb.obj` (a converter's output)
    /// has the stem `hero.glb`: it must not write `hero.glb.glb` too.
    #[test]
    fn a_stem_equal_to_a_siblings_file_name_takes_the_extension() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let meshes = ["hero.obj", "hero.glb", "hero.glb.obj"].map(|m| root.join(m));
        for m in &meshes {
            touch(m);
        }
        let out = root.join("rigged");
        let mut files: Vec<PathBuf> = meshes
            .iter()
            .map(|m| output_base(m, root, &out).file("glb"))
            .collect();
        assert_eq!(
            files,
            ["hero.obj.glb", "hero.glb.glb", "hero.glb.obj.glb"].map(|f| out.join(f))
        );
        files.dedup();
        assert_eq!(files.len(), 3);
        // Alone beside a `hero.txt` (not a mesh), `hero.txt.obj` keeps its stem.
        touch(&root.join("x/hero.txt"));
        touch(&root.join("x/hero.txt.obj"));
        assert_eq!(asset_name(&root.join("x/hero.txt.obj")), "hero.txt");
    }

    #[test]
    fn a_mesh_outside_the_root_goes_to_the_output_folder() {
        let b = output_base(
            Path::new("/elsewhere/x/dog.obj"),
            Path::new("/r"),
            Path::new("/o"),
        );
        assert_eq!(b.file("glb"), PathBuf::from("/o/dog.glb"));
    }

    #[test]
    fn relative_meshes_in_two_folders_get_two_output_folders() {
        // `geppetto rig x/a.obj y/a.obj`: relative meshes, the absolute common root.
        let meshes: Vec<PathBuf> = vec!["x/a.obj".into(), "y/../y/a.obj".into()];
        let root = common_root(&meshes);
        let out = Path::new("/o");
        let files: Vec<PathBuf> = meshes
            .iter()
            .map(|m| output_base(m, &root, out).file("glb"))
            .collect();
        assert_eq!(files, [out.join("x/a.glb"), out.join("y/a.glb")]);
    }

    #[test]
    fn common_root_is_the_deepest_shared_folder() {
        let r = common_root(&["/p/a/hero.obj".into(), "/p/b/c/hero.obj".into()]);
        assert_eq!(r, PathBuf::from("/p"));
        assert_eq!(
            common_root(&["/p/a/x.obj".into()]),
            PathBuf::from("/p/a"),
            "one input: its own folder, so the output is flat"
        );
    }
}
