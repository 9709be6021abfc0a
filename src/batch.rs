//! Fan-out over a scheduler: a mesh list file (`geppetto rig --list FILE`) and a shard of it
//! (`--shard K/N`), so a studio's library is rigged by N independent tasks of the scheduler it
//! already runs (a Kubernetes Indexed Job, a Slurm array), with no coordination between them.
//!
//! * **List file**: one mesh path per line; blank lines and lines starting with `#` are ignored,
//!   surrounding spaces are trimmed; a relative path is resolved against the list file's folder
//!   (so the list can travel with the library). Every entry must name an existing file of a mesh
//!   format Geppetto reads; otherwise reading fails naming the list file and the line.
//! * **Shard**: the task's inputs are the de-duplicated inputs (first occurrence kept, in order)
//!   whose 0-based index `i` has `i mod N = K`. The split depends only on the list's content, not
//!   on the machine, its core count or the order in which tasks run; round-robin (rather than N
//!   contiguous blocks) spreads neighbouring, often similar-sized, assets over the tasks.
//!
//! Output locations are decided from the whole input list, never from one shard
//! ([`crate::naming::common_root`] of every input), so N shards write exactly the files one run
//! writes.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::mesh::MeshFormat;

/// Why a list file or a shard specification cannot be used.
#[derive(Debug, Error)]
pub enum BatchError {
    /// The list file could not be read.
    #[error("{}: cannot read the mesh list: {cause}", path.display())]
    Io {
        /// The list file.
        path: PathBuf,
        /// Cause (in the message, printed once).
        cause: std::io::Error,
    },
    /// One line of the list does not name a usable mesh file.
    #[error("{}:{line}: {problem}", path.display())]
    Line {
        /// The list file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// `--shard` is not `K/N` with `0 <= K < N`.
    #[error("--shard '{spec}': {problem}")]
    Shard {
        /// The text given.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// Read a mesh list file: the mesh paths it names, in file order (see the module docs).
pub fn read_list(path: &Path) -> Result<Vec<PathBuf>, BatchError> {
    let text = std::fs::read_to_string(path).map_err(|cause| BatchError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let mut meshes = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let entry = raw.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        let bad = |problem: String| BatchError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            problem,
        };
        let mesh = folder.join(entry);
        if MeshFormat::from_path(&mesh).is_none() {
            return Err(bad(format!(
                "'{entry}' is not a mesh file Geppetto reads (.obj, .glb, .gltf, .fbx, .off, .ply)"
            )));
        }
        if !mesh.is_file() {
            return Err(bad(format!("'{entry}': no such file ({})", mesh.display())));
        }
        meshes.push(mesh);
    }
    Ok(meshes)
}

/// One task's part of the inputs: `index` of `count` (0-based, `index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This task's index K.
    pub index: usize,
    /// Number of tasks N.
    pub count: usize,
}

impl Shard {
    /// Parse `K/N` (0-based K, as `JOB_COMPLETION_INDEX` and a Slurm `--array=0-(N-1)` give it).
    pub fn parse(spec: &str) -> Result<Self, BatchError> {
        let bad = |problem: &str| BatchError::Shard {
            spec: spec.to_string(),
            problem: problem.to_string(),
        };
        let (k, n) = spec
            .split_once('/')
            .ok_or_else(|| bad("expected K/N, e.g. 0/3"))?;
        let index: usize = k
            .trim()
            .parse()
            .map_err(|_| bad("K is not a whole number ≥ 0"))?;
        let count: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number ≥ 1"))?;
        if count == 0 {
            return Err(bad("N must be at least 1"));
        }
        if index >= count {
            return Err(bad("K must be less than N (K counts from 0)"));
        }
        Ok(Self { index, count })
    }

    /// The inputs of this shard: every `count`-th item of `inputs`, starting at `index`, in order.
    /// `inputs` must already be de-duplicated, so every input falls in exactly one shard.
    pub fn select<T: Clone>(&self, inputs: &[T]) -> Vec<T> {
        inputs
            .iter()
            .skip(self.index)
            .step_by(self.count)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_inputs_and_keep_their_order() {
        let inputs: Vec<usize> = (0..10).collect();
        let parts: Vec<Vec<usize>> = (0..3)
            .map(|k| Shard { index: k, count: 3 }.select(&inputs))
            .collect();
        assert_eq!(parts[0], [0, 3, 6, 9]);
        assert_eq!(parts[1], [1, 4, 7]);
        assert_eq!(parts[2], [2, 5, 8]);
        let one = Shard { index: 0, count: 1 }.select(&inputs);
        assert_eq!(one, inputs);
    }

    #[test]
    fn shard_specs_are_validated() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
        for bad in ["3/3", "1/0", "a/3", "3", "-1/3", "1/-3", ""] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
        assert!(Shard::parse("4/3")
            .unwrap_err()
            .to_string()
            .contains("less than N"));
    }

    #[test]
    fn list_lines_resolve_against_the_list_folder_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/hero.obj"), "v 0 0 0\n").unwrap();
        std::fs::write(dir.path().join("b.ply"), "ply\n").unwrap();
        let list = dir.path().join("meshes.txt");
        std::fs::write(&list, "# library\n\n  a/hero.obj  \nb.ply\n# end\n").unwrap();
        let got = read_list(&list).unwrap();
        assert_eq!(
            got,
            [dir.path().join("a/hero.obj"), dir.path().join("b.ply")]
        );

        std::fs::write(&list, "a/hero.obj\n\nmissing.obj\n").unwrap();
        let e = read_list(&list).unwrap_err().to_string();
        assert!(
            e.contains("meshes.txt:3:") && e.contains("missing.obj"),
            "{e}"
        );
        std::fs::write(&list, "a/hero.obj\nnotes.txt\n").unwrap();
        let e = read_list(&list).unwrap_err().to_string();
        assert!(
            e.contains("meshes.txt:2:") && e.contains("not a mesh file"),
            "{e}"
        );
        let e = read_list(&dir.path().join("none.txt"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("none.txt") && e.contains("cannot read"), "{e}");
    }
}
