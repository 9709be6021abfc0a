//! The ingest state machine: turns raw "this path was touched" notifications into rig requests.
//! It does no I/O: callers pass file stats and the current time, so tests drive it with synthetic
//! events and an injected clock.
//!
//! Rules (issue 5 §1):
//! * only paths matching the mesh globs (or a mesh's `NAME.hints.yaml`) are considered; the output
//!   folder, hidden files and `.geppetto-tmp-*` temp files are ignored;
//! * a file is ready once its size and mtime are unchanged for the settle interval (exporters write
//!   for seconds; editors write a temp file and rename it); a stable empty file is reported as
//!   [`FsChange::Empty`] (waiting for its content), not rigged;
//! * a ready file whose stat equals the one last reported is not reported again (metadata-only
//!   events), so an unreadable file is retried on its *next change*;
//! * a vanished file is reported as removed;
//! * any other file (a texture, a `.bin`, a `.mtl`) settles the same way and is reported as
//!   [`FsChange::File`] with its stat, or at once when it vanishes; whether an asset depends on
//!   it is the app's business (the loader says which files each rig read).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::glob::Glob;

/// What the watcher needs of a file's metadata: size and modification time, the same record
/// the loader keeps of each companion file it reads.
pub use crate::mesh::load::FileStat as Stat;

/// A change the rest of the program acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FsChange {
    /// A mesh file is new or changed and stable: rig it.
    Ready(PathBuf),
    /// A mesh file disappeared (deleted or renamed away).
    Removed(PathBuf),
    /// A mesh file exists but is empty (0 bytes) and stable: an editor or exporter created it and
    /// its content follows; shown as waiting, rigged by the [`FsChange::Ready`] that comes with it.
    Empty(PathBuf),
    /// The hints sidecar of this mesh changed, appeared or disappeared; `text` is its content
    /// (`None` when deleted or unreadable).
    HintsChanged {
        /// The mesh whose sidecar it is.
        mesh: PathBuf,
        /// The sidecar's content now.
        text: Option<String>,
    },
    /// Some other file (not a mesh, not a sidecar) is new, changed and stable, or vanished
    /// (`stat` is `None`): an asset whose load read it (or looked for it) may need a re-rig.
    File {
        /// The file.
        path: PathBuf,
        /// Its stat now.
        stat: Option<Stat>,
    },
    /// A mesh-named file is one of Geppetto's own outputs (an earlier run's `--out` inside the
    /// watched folder): not rigged; reported once until it changes into something else.
    Output {
        /// The file.
        path: PathBuf,
        /// Its `asset.generator`, e.g. `geppetto 0.1.0`.
        generator: String,
    },
    /// The initial scan finished; these meshes were found.
    ScanDone(Vec<PathBuf>),
    /// A watcher problem (inotify limits, unreadable folder); the watcher keeps running.
    Error(String),
    /// The watched folder itself was deleted or replaced; its meshes were reported `Removed`, and
    /// the watcher waits for the folder to come back.
    RootGone(PathBuf),
    /// The watched folder exists again; the watcher re-attached and rescans it.
    RootBack(PathBuf),
}

/// How the ingest treats a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// A mesh file to rig.
    Mesh,
    /// A hints sidecar `dir/NAME.hints.yaml`; the payload is `dir/NAME` (no extension).
    Hints(PathBuf),
    /// Any other file: a possible companion of some asset (a texture, a `.bin`, a `.mtl`).
    Other,
    /// Not ours to look at.
    Ignored,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    stat: Option<Stat>,
    since: Instant,
}

/// The state machine. See the module docs.
#[derive(Debug)]
pub struct Ingest {
    root: PathBuf,
    out_dir: PathBuf,
    globs: Vec<Glob>,
    settle: Duration,
    pending: BTreeMap<PathBuf, Pending>,
    /// Meshes reported ready, with the stat reported.
    known: BTreeMap<PathBuf, Stat>,
    /// Meshes seen but not yet ready (still settling).
    seen: BTreeSet<PathBuf>,
    /// Other files reported, with the stat reported.
    others: BTreeMap<PathBuf, Stat>,
}

const HINTS_SUFFIX: &str = ".hints.yaml";

impl Ingest {
    /// A state machine for `root` (absolute), ignoring `out_dir`.
    pub fn new(root: PathBuf, out_dir: PathBuf, globs: Vec<Glob>, settle: Duration) -> Self {
        Self {
            root,
            out_dir,
            globs,
            settle,
            pending: BTreeMap::new(),
            known: BTreeMap::new(),
            seen: BTreeSet::new(),
            others: BTreeMap::new(),
        }
    }

    /// Classify a path (absolute, under the root).
    pub fn classify(&self, path: &Path) -> Class {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Class::Ignored;
        };
        if path.starts_with(&self.out_dir) || rel.as_os_str().is_empty() {
            return Class::Ignored;
        }
        // Hidden files and folders (editor swap files, our own `.geppetto-tmp-*`).
        let hidden = rel
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
        if hidden {
            return Class::Ignored;
        }
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(stem) = name.strip_suffix(HINTS_SUFFIX) {
            return Class::Hints(path.with_file_name(stem));
        }
        if self.globs.iter().any(|g| g.matches(rel)) {
            Class::Mesh
        } else {
            Class::Other
        }
    }

    /// A path was touched (created, written, renamed to or from, deleted). `stat` is its state now.
    pub fn touch(&mut self, path: &Path, stat: Option<Stat>, now: Instant) -> Vec<FsChange> {
        match self.classify(path) {
            Class::Ignored => Vec::new(),
            Class::Mesh if stat.is_none() => {
                self.pending.remove(path);
                self.seen.remove(path);
                if self.known.remove(path).is_some() {
                    vec![FsChange::Removed(path.to_path_buf())]
                } else {
                    Vec::new()
                }
            }
            Class::Other if stat.is_none() => {
                self.pending.remove(path);
                self.others
                    .remove(path)
                    .map(|_| FsChange::File {
                        path: path.to_path_buf(),
                        stat: None,
                    })
                    .into_iter()
                    .collect()
            }
            Class::Mesh | Class::Hints(_) | Class::Other => {
                if matches!(self.classify(path), Class::Mesh) {
                    self.seen.insert(path.to_path_buf());
                }
                // The settle timer measures how long (size, mtime) has been unchanged, not how long
                // since the last event: repeated events on an unchanged file do not delay it.
                match self.pending.get(path) {
                    Some(p) if p.stat == stat => {}
                    _ => {
                        self.pending
                            .insert(path.to_path_buf(), Pending { stat, since: now });
                    }
                }
                Vec::new()
            }
        }
    }

    /// Forget `path` as a mesh (settling or known) without reporting anything: the notifier found
    /// it is one of Geppetto's own outputs, which is reported as [`FsChange::Output`] instead.
    pub fn withdraw(&mut self, path: &Path) {
        self.pending.remove(path);
        self.seen.remove(path);
        self.known.remove(path);
    }

    /// Advance time: re-stat pending paths and report the ones that settled.
    pub fn tick(&mut self, now: Instant, stat_of: &dyn Fn(&Path) -> Option<Stat>) -> Vec<FsChange> {
        let mut out = Vec::new();
        let paths: Vec<PathBuf> = self.pending.keys().cloned().collect();
        for path in paths {
            let current = stat_of(&path);
            let Some(p) = self.pending.get_mut(&path) else {
                continue;
            };
            if current != p.stat {
                *p = Pending {
                    stat: current,
                    since: now,
                };
                continue;
            }
            if now.saturating_duration_since(p.since) < self.settle {
                continue;
            }
            self.pending.remove(&path);
            out.extend(self.settled(&path, current));
        }
        out
    }

    /// A pending path has been stable for the settle interval.
    fn settled(&mut self, path: &Path, stat: Option<Stat>) -> Option<FsChange> {
        match self.classify(path) {
            Class::Mesh => match stat {
                None => {
                    self.seen.remove(path);
                    self.known
                        .remove(path)
                        .map(|_| FsChange::Removed(path.to_path_buf()))
                }
                Some(s) => {
                    if self.known.get(path) == Some(&s) {
                        return None; // metadata-only event: nothing to redo
                    }
                    // Known even when empty: its content arriving changes the stat (a `Ready`),
                    // and its deletion is a `Removed`.
                    self.known.insert(path.to_path_buf(), s);
                    Some(if s.len == 0 {
                        FsChange::Empty(path.to_path_buf())
                    } else {
                        FsChange::Ready(path.to_path_buf())
                    })
                }
            },
            Class::Other => self.other_settled(path, stat),
            Class::Hints(stem) => {
                let mesh = self.mesh_for_stem(&stem)?;
                let text = stat.and_then(|_| std::fs::read_to_string(path).ok());
                Some(FsChange::HintsChanged { mesh, text })
            }
            Class::Ignored => None,
        }
    }

    /// Another file settled: reported unless its stat is the one reported last (a metadata-only
    /// event), or it was never reported and is gone.
    fn other_settled(&mut self, path: &Path, stat: Option<Stat>) -> Option<FsChange> {
        let before = match stat {
            Some(s) => self.others.insert(path.to_path_buf(), s),
            None => self.others.remove(path),
        };
        (before != stat).then(|| FsChange::File {
            path: path.to_path_buf(),
            stat,
        })
    }

    /// The mesh (known or settling) whose sidecar is `dir/NAME.hints.yaml`: `dir/NAME.*`, or
    /// `dir/NAME` itself when NAME carries the extension (same-stem meshes, [`crate::naming`]).
    fn mesh_for_stem(&self, stem: &Path) -> Option<PathBuf> {
        let sidecar = stem.with_file_name(format!(
            "{}.hints.yaml",
            stem.file_name()?.to_string_lossy()
        ));
        let owns = |p: &&PathBuf| {
            p.parent() == stem.parent()
                && (p.file_stem() == stem.file_name() || p.file_name() == stem.file_name())
                && crate::embed::hints::sidecar_path(p) == sidecar
        };
        self.known
            .keys()
            .find(owns)
            .or_else(|| self.seen.iter().find(owns))
            .cloned()
    }

    /// A folder vanished (deleted or renamed away): every mesh under it is removed. Inotify does not
    /// report the files inside a folder that is renamed out of the watched tree.
    pub fn vanished_under(&mut self, dir: &Path) -> Vec<FsChange> {
        let mut gone: Vec<PathBuf> = self
            .known
            .keys()
            .chain(self.seen.iter())
            .filter(|p| p.starts_with(dir) && p.as_path() != dir)
            .cloned()
            .collect();
        gone.sort();
        gone.dedup();
        let mut out = Vec::new();
        for p in gone {
            self.pending.remove(&p);
            self.seen.remove(&p);
            if self.known.remove(&p).is_some() {
                out.push(FsChange::Removed(p));
            }
        }
        let others: Vec<PathBuf> = self
            .others
            .keys()
            .filter(|p| p.starts_with(dir) && p.as_path() != dir)
            .cloned()
            .collect();
        for p in others {
            self.pending.remove(&p);
            self.others.remove(&p);
            out.push(FsChange::File {
                path: p,
                stat: None,
            });
        }
        out
    }

    /// True while some path is still settling.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Meshes seen so far (ready or settling), sorted.
    pub fn meshes(&self) -> Vec<PathBuf> {
        self.seen.iter().cloned().collect()
    }
}

#[cfg(test)]
#[path = "ingest_tests.rs"]
mod tests;
#[cfg(test)]
mod real_clock {
    use super::*;
    #[test]
    fn real_file_settles() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let p = root.join("a.obj");
        std::fs::write(&p, "v 0 0 0\n").unwrap();
        let mut ing = Ingest::new(
            root.clone(),
            root.join("rigged"),
            vec![Glob::new("**/*.obj")],
            Duration::from_millis(100),
        );
        let t0 = Instant::now();
        assert!(ing.touch(&p, Stat::of(&p), t0).is_empty());
        assert!(ing.busy());
        let out = ing.tick(t0 + Duration::from_millis(200), &Stat::of);
        assert_eq!(out, vec![FsChange::Ready(p)]);
    }
}
