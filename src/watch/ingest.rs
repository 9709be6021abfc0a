//! The ingest state machine: turns raw "this path was touched" notifications into rig requests.
//! It does no I/O: callers pass file stats and the current time, so tests drive it with synthetic
//! events and an injected clock.
//!
//! Rules (issue 5 §1):
//! * only paths matching the mesh globs (or a mesh's `NAME.hints.yaml`) are considered; the output
//!   folder, hidden files and `.geppetto-tmp-*` temp files are ignored;
//! * a file is ready once its size and mtime are unchanged for the settle interval and it is not
//!   empty (exporters write for seconds; editors write a temp file and rename it);
//! * a ready file whose stat equals the one last reported is not reported again (metadata-only
//!   events), so an unreadable file is retried on its *next change*;
//! * a vanished file is reported as removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::glob::Glob;

/// What the watcher needs of a file's metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Size in bytes.
    pub len: u64,
    /// Modification time, when the file system has one.
    pub modified: Option<SystemTime>,
}

impl Stat {
    /// Stat a regular file; `None` if it does not exist or is not a file.
    pub fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        m.is_file().then(|| Self {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// A change the rest of the program acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FsChange {
    /// A mesh file is new or changed and stable: rig it.
    Ready(PathBuf),
    /// A mesh file disappeared (deleted or renamed away).
    Removed(PathBuf),
    /// The hints sidecar of this mesh changed, appeared or disappeared; `text` is its content
    /// (`None` when deleted or unreadable).
    HintsChanged {
        /// The mesh whose sidecar it is.
        mesh: PathBuf,
        /// The sidecar's content now.
        text: Option<String>,
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
            Class::Ignored
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
            Class::Mesh | Class::Hints(_) => {
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
                Some(s) if s.len == 0 => None, // an exporter created it; content follows
                Some(s) => {
                    if self.known.get(path) == Some(&s) {
                        return None; // metadata-only event: nothing to redo
                    }
                    self.known.insert(path.to_path_buf(), s);
                    Some(FsChange::Ready(path.to_path_buf()))
                }
            },
            Class::Hints(stem) => {
                let mesh = self.mesh_for_stem(&stem)?;
                let text = stat.and_then(|_| std::fs::read_to_string(path).ok());
                Some(FsChange::HintsChanged { mesh, text })
            }
            Class::Ignored => None,
        }
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
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    struct World {
        ingest: Ingest,
        files: RefCell<HashMap<PathBuf, Stat>>,
        t0: Instant,
    }

    const SETTLE: Duration = Duration::from_millis(500);

    impl World {
        fn new() -> Self {
            let root = PathBuf::from("/assets");
            Self {
                ingest: Ingest::new(
                    root.clone(),
                    root.join("rigged"),
                    vec![Glob::new("**/*.obj"), Glob::new("**/*.glb")],
                    SETTLE,
                ),
                files: RefCell::new(HashMap::new()),
                t0: Instant::now(),
            }
        }
        fn at(&self, ms: u64) -> Instant {
            self.t0 + Duration::from_millis(ms)
        }
        fn write(&mut self, name: &str, len: u64, ms: u64) -> Vec<FsChange> {
            let p = PathBuf::from("/assets").join(name);
            let s = Stat {
                len,
                modified: Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms)),
            };
            self.files.borrow_mut().insert(p.clone(), s);
            let now = self.at(ms);
            self.ingest.touch(&p, Some(s), now)
        }
        fn delete(&mut self, name: &str, ms: u64) -> Vec<FsChange> {
            let p = PathBuf::from("/assets").join(name);
            self.files.borrow_mut().remove(&p);
            let now = self.at(ms);
            self.ingest.touch(&p, None, now)
        }
        fn tick(&mut self, ms: u64) -> Vec<FsChange> {
            let files = self.files.borrow().clone();
            let now = self.at(ms);
            self.ingest.tick(now, &|p| files.get(p).copied())
        }
    }

    fn ready(name: &str) -> FsChange {
        FsChange::Ready(PathBuf::from("/assets").join(name))
    }

    #[test]
    fn a_file_is_ready_only_after_it_settles() {
        let mut w = World::new();
        assert!(w.write("a.obj", 10, 0).is_empty());
        assert!(w.tick(100).is_empty());
        assert!(w.tick(499).is_empty());
        assert_eq!(w.tick(500), vec![ready("a.obj")]);
        assert!(w.tick(2000).is_empty(), "reported once");
    }

    #[test]
    fn slow_chunked_writes_wait_for_the_last_chunk() {
        let mut w = World::new();
        w.write("slow.obj", 0, 0);
        let mut reported = Vec::new();
        for i in 1..=10u64 {
            // A chunk every 300 ms, each growing the file; the file changes under the ingest's feet
            // (no event needed: tick re-stats).
            let p = PathBuf::from("/assets/slow.obj");
            w.files.borrow_mut().insert(
                p,
                Stat {
                    len: i * 100,
                    modified: Some(SystemTime::UNIX_EPOCH + Duration::from_millis(i * 300)),
                },
            );
            reported.extend(w.tick(i * 300));
            reported.extend(w.tick(i * 300 + 150));
        }
        assert!(reported.is_empty(), "nothing while writing: {reported:?}");
        assert!(w.tick(3000 + 400).is_empty());
        assert_eq!(w.tick(3000 + 500), vec![ready("slow.obj")]);
    }

    #[test]
    fn empty_files_wait_for_content() {
        let mut w = World::new();
        w.write("e.obj", 0, 0);
        assert!(w.tick(5000).is_empty());
        w.write("e.obj", 5, 6000);
        assert_eq!(w.tick(6500), vec![ready("e.obj")]);
    }

    #[test]
    fn metadata_only_events_do_not_rerig_but_real_changes_do() {
        let mut w = World::new();
        w.write("a.obj", 10, 0);
        assert_eq!(w.tick(600), vec![ready("a.obj")]);
        // Same stat touched again (chmod, close-nowrite): nothing.
        let p = PathBuf::from("/assets/a.obj");
        let s = w.files.borrow()[&p];
        w.ingest.touch(&p, Some(s), w.at(700));
        assert!(w.tick(1300).is_empty());
        // A real change (unreadable file fixed by the user, or a re-save).
        w.write("a.obj", 11, 1400);
        assert_eq!(w.tick(1900), vec![ready("a.obj")]);
    }

    #[test]
    fn repeated_events_on_an_unchanged_file_do_not_delay_it() {
        let mut w = World::new();
        w.write("a.obj", 10, 0);
        let p = PathBuf::from("/assets/a.obj");
        let s = w.files.borrow()[&p];
        for ms in (50..500).step_by(50) {
            w.ingest.touch(&p, Some(s), w.at(ms));
            assert!(w.tick(ms).is_empty());
        }
        assert_eq!(w.tick(500), vec![ready("a.obj")]);
    }

    #[test]
    fn rename_reports_old_removed_and_new_ready() {
        let mut w = World::new();
        w.write("a.obj", 10, 0);
        w.tick(600);
        let removed = w.delete("a.obj", 700);
        assert_eq!(removed, vec![FsChange::Removed("/assets/a.obj".into())]);
        w.write("b.obj", 10, 700);
        assert_eq!(w.tick(1200), vec![ready("b.obj")]);
    }

    #[test]
    fn editor_temp_file_then_rename_rigs_the_target_once() {
        let mut w = World::new();
        // vim: writes ".a.obj.swp" / "a.obj~" / "4913", then renames over a.obj.
        assert!(w.write(".a.obj.swp", 10, 0).is_empty());
        assert!(w.write("a.obj~", 10, 0).is_empty());
        assert!(w.write(".geppetto-tmp-XYZ", 10, 0).is_empty());
        w.write("a.obj", 20, 10);
        assert_eq!(w.tick(510), vec![ready("a.obj")]);
    }

    #[test]
    fn outputs_and_non_meshes_are_ignored() {
        let w = World::new();
        let c = |s: &str| w.ingest.classify(Path::new(s));
        assert_eq!(c("/assets/rigged/a.glb"), Class::Ignored);
        assert_eq!(c("/assets/a.png"), Class::Ignored);
        assert_eq!(c("/assets/a.rig.json"), Class::Ignored);
        assert_eq!(c("/elsewhere/a.obj"), Class::Ignored);
        assert_eq!(c("/assets/x/a.glb"), Class::Mesh);
        assert_eq!(
            c("/assets/x/a.hints.yaml"),
            Class::Hints("/assets/x/a".into())
        );
    }

    #[test]
    fn a_folder_renamed_away_removes_its_meshes() {
        let mut w = World::new();
        w.write("sub/a.obj", 10, 0);
        w.write("sub/b.obj", 10, 0);
        w.write("other.obj", 10, 0);
        assert_eq!(w.tick(600).len(), 3);
        let out = w.ingest.vanished_under(Path::new("/assets/sub"));
        assert_eq!(
            out,
            vec![
                FsChange::Removed("/assets/sub/a.obj".into()),
                FsChange::Removed("/assets/sub/b.obj".into())
            ]
        );
        assert_eq!(w.ingest.meshes(), vec![PathBuf::from("/assets/other.obj")]);
    }

    #[test]
    fn deleting_a_file_still_settling_reports_nothing() {
        let mut w = World::new();
        w.write("a.obj", 10, 0);
        assert!(w.delete("a.obj", 100).is_empty());
        assert!(w.tick(1000).is_empty());
    }

    #[test]
    fn hints_edit_names_the_mesh() {
        let mut w = World::new();
        w.write("sub/a.obj", 10, 0);
        w.tick(600);
        w.write("sub/a.hints.yaml", 10, 700);
        let out = w.tick(1200);
        assert_eq!(out.len(), 1);
        match &out[0] {
            FsChange::HintsChanged { mesh, .. } => assert_eq!(mesh, Path::new("/assets/sub/a.obj")),
            other => panic!("{other:?}"),
        }
        // A sidecar without a mesh is ignored.
        w.write("sub/zzz.hints.yaml", 10, 700);
        assert!(w.tick(2000).is_empty());
    }
}
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
