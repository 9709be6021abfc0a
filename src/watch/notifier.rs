//! The file-system side of the watcher: a thread that owns the notify debouncer (or the polling
//! watcher with `--poll`) and the [`Ingest`] state machine, does the initial scan, rescans new
//! folders (notify 8.2's inotify backend misses files created inside a brand-new subfolder), and
//! reports [`FsChange`]s through a callback.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, PollWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, new_debouncer_opt, DebounceEventResult, NoCache};

use super::config::WatchSettings;
use super::ingest::{Class, FsChange, Ingest, Stat};
use crate::mesh::load::ours::geppetto_output;

/// Receives changes; called on the watcher thread.
pub type Sink = Box<dyn Fn(FsChange) + Send>;

/// A running watcher; dropping it stops the thread.
pub struct WatchHandle {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The OS watcher (or the poller); kept alive by holding it, stopped by dropping it.
type OsWatcher = Box<dyn std::any::Any + Send>;

/// Start the OS watcher (or the poller) on `settings.root`, sending batches to `tx`.
fn os_watcher(
    settings: &WatchSettings,
    tx: mpsc::Sender<DebounceEventResult>,
) -> notify::Result<OsWatcher> {
    Ok(match settings.poll {
        Some(interval) => {
            let config = notify::Config::default().with_poll_interval(interval);
            let mut d = new_debouncer_opt::<_, PollWatcher, NoCache>(
                settings.debounce,
                None,
                tx,
                NoCache,
                config,
            )?;
            d.watch(&settings.root, RecursiveMode::Recursive)?;
            Box::new(d)
        }
        None => {
            let mut d = new_debouncer(settings.debounce, None, tx)?;
            d.watch(&settings.root, RecursiveMode::Recursive)?;
            Box::new(d)
        }
    })
}

/// Start watching `settings.root`. The initial scan runs on the watcher thread; its result arrives
/// as [`FsChange::ScanDone`].
pub fn spawn(settings: WatchSettings, sink: Sink) -> anyhow::Result<WatchHandle> {
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    // Start the OS watcher first so nothing written during the scan is missed.
    let os = os_watcher(&settings, tx.clone())?;
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("geppetto-watch".into())
        .spawn(move || {
            let mut root = RootWatch {
                os: Some(os),
                tx,
                identity: folder_identity(&settings.root),
            };
            run(&settings, &rx, &mut root, &sink, &stop2);
        })?;
    Ok(WatchHandle {
        stop,
        thread: Some(thread),
    })
}

/// The watched folder's OS watcher and identity. A watch follows the folder's inode, so when the
/// folder is deleted (or replaced: a branch checkout, an rsync, a remount) the watcher goes
/// blind; the folder is checked on every tick and the watcher re-created when it is back.
struct RootWatch {
    os: Option<OsWatcher>,
    tx: mpsc::Sender<DebounceEventResult>,
    identity: Option<(u64, u64)>,
}

/// (device, inode) of a folder, `None` if it is not a folder now.
fn folder_identity(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir)
        .ok()
        .filter(std::fs::Metadata::is_dir)
        .map(|m| (m.dev(), m.ino()))
}

/// Notice the root going away or coming back; on its return, re-attach and rescan.
fn check_root(
    settings: &WatchSettings,
    ingest: &mut Ingest,
    outputs: &mut Outputs,
    root: &mut RootWatch,
    sink: &Sink,
) {
    let now = folder_identity(&settings.root);
    if now == root.identity && (now.is_none() || root.os.is_some()) {
        return;
    }
    if root.os.is_some() {
        root.os = None; // stop the blind watcher
        emit(sink, ingest.vanished_under(&settings.root));
        sink(FsChange::RootGone(settings.root.clone()));
    }
    root.identity = now;
    if now.is_none() {
        return;
    }
    match os_watcher(settings, root.tx.clone()) {
        Ok(os) => {
            root.os = Some(os);
            sink(FsChange::RootBack(settings.root.clone()));
            offer_tree(
                ingest,
                outputs,
                &settings.root,
                settings,
                Instant::now(),
                sink,
            );
        }
        Err(e) => {
            root.identity = None; // try again on the next tick
            sink(FsChange::Error(explain(&e)));
        }
    }
}

fn run(
    settings: &WatchSettings,
    rx: &mpsc::Receiver<DebounceEventResult>,
    root: &mut RootWatch,
    sink: &Sink,
    stop: &AtomicBool,
) {
    let mut ingest = Ingest::new(
        settings.root.clone(),
        settings.out_dir.clone(),
        settings.globs.clone(),
        settings.settle,
    );
    let mut outputs = Outputs::default();
    offer_tree(
        &mut ingest,
        &mut outputs,
        &settings.root,
        settings,
        Instant::now(),
        sink,
    );
    sink(FsChange::ScanDone(ingest.meshes()));
    let tick = (settings.settle / 5).clamp(Duration::from_millis(20), Duration::from_millis(200));
    while !stop.load(Ordering::Relaxed) {
        match rx.recv_timeout(tick) {
            Ok(Ok(events)) => on_events(events, &mut ingest, &mut outputs, settings, sink),
            Ok(Err(errors)) => {
                if folder_identity(&settings.root).is_none() {
                    continue; // the root vanished: check_root says so in plain words
                }
                for e in errors {
                    sink(FsChange::Error(explain(&e)));
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        check_root(settings, &mut ingest, &mut outputs, root, sink);
        let settled = ingest.tick(Instant::now(), &Stat::of);
        outputs.settled(&mut ingest, settled, sink);
    }
}

/// One debounced batch of file-system events, offered to the ingest.
fn on_events(
    events: Vec<notify_debouncer_full::DebouncedEvent>,
    ingest: &mut Ingest,
    outputs: &mut Outputs,
    settings: &WatchSettings,
    sink: &Sink,
) {
    let now = Instant::now();
    for ev in events {
        // Opening or reading (including our own folder walks) changes nothing.
        if matches!(ev.kind, EventKind::Access(a) if !matches!(a, AccessKind::Close(AccessMode::Write)))
        {
            continue;
        }
        if ev.need_rescan() {
            offer_tree(ingest, outputs, &settings.root, settings, now, sink);
        }
        // A folder is walked only when it appears (created or renamed into place).
        let appeared = matches!(
            ev.kind,
            EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_))
        );
        for path in &ev.paths {
            touch_path(ingest, outputs, settings, path, appeared, now, sink);
        }
    }
}

fn emit(sink: &Sink, changes: Vec<FsChange>) {
    for c in changes {
        sink(c);
    }
}

/// Every file under `dir` (the output folder and hidden folders left out), offered to the ingest
/// ([`Outputs::offer`]): the start-up scan, a rescan, the root's return, a new folder.
fn offer_tree(
    ingest: &mut Ingest,
    outputs: &mut Outputs,
    dir: &Path,
    settings: &WatchSettings,
    now: Instant,
    sink: &Sink,
) {
    for p in walk(dir, &settings.out_dir) {
        outputs.offer(ingest, &p, Stat::of(&p), now, sink);
    }
}

/// One event path: a folder (new, or renamed into place) is walked; a file is offered.
fn touch_path(
    ingest: &mut Ingest,
    outputs: &mut Outputs,
    settings: &WatchSettings,
    path: &Path,
    appeared: bool,
    now: Instant,
    sink: &Sink,
) {
    if path.is_dir() {
        if !appeared {
            return;
        }
        offer_tree(ingest, outputs, path, settings, now, sink);
    } else {
        let stat = Stat::of(path);
        if stat.is_none() && !path.exists() {
            emit(sink, ingest.vanished_under(path));
        }
        outputs.offer(ingest, path, stat, now, sink);
    }
}

/// Files of ours found in the watched folder (an earlier run's outputs, written there because its
/// `--out` differed from this run's): the mesh-named ones are kept away from the [`Ingest`], so
/// they are neither listed nor rigged, and each is reported once.
#[derive(Default)]
struct Outputs {
    reported: BTreeSet<PathBuf>,
}

impl Outputs {
    /// Hand `path` (its `stat` now) to the ingest unless it is a mesh-named file Geppetto wrote. The check reads the
    /// file's glTF header (I/O, so it lives here and not in the ingest); our outputs appear whole
    /// (written to a temporary file and renamed), so a half-written file is never mistaken.
    fn offer(
        &mut self,
        ingest: &mut Ingest,
        path: &Path,
        stat: Option<Stat>,
        now: Instant,
        sink: &Sink,
    ) {
        let ours = match (ingest.classify(path), stat) {
            (Class::Mesh, Some(_)) => geppetto_output(path),
            _ => None,
        };
        match ours {
            Some(generator) => self.report(ingest, path, generator, sink),
            None => {
                self.reported.remove(path);
                emit(sink, ingest.touch(path, stat, now));
            }
        }
    }

    /// Changes the ingest reports as settled, with every ready mesh checked again now that it is
    /// whole: a file copied in several writes (`cp` of a big GLB, a file manager, `scp`) is not
    /// yet recognisable as ours when its first bytes are offered.
    fn settled(&mut self, ingest: &mut Ingest, changes: Vec<FsChange>, sink: &Sink) {
        for change in changes {
            match change {
                FsChange::Ready(path) => match geppetto_output(&path) {
                    Some(generator) => self.report(ingest, &path, generator, sink),
                    None => sink(FsChange::Ready(path)),
                },
                other => sink(other),
            }
        }
    }

    /// `path` is ours: the ingest forgets it (it may have been settling, or a source the file
    /// replaced), and it is reported once.
    fn report(&mut self, ingest: &mut Ingest, path: &Path, generator: String, sink: &Sink) {
        ingest.withdraw(path);
        if self.reported.insert(path.to_path_buf()) {
            sink(FsChange::Output {
                path: path.to_path_buf(),
                generator,
            });
        }
    }
}

/// Plain words for notify errors; inotify's watch limit shows up as "No space left on device".
fn explain(e: &notify::Error) -> String {
    let text = e.to_string();
    if text.contains("No space left") || matches!(e.kind, notify::ErrorKind::MaxFilesWatch) {
        format!("{text} — the inotify watch limit is reached; raise fs.inotify.max_user_watches or use --poll")
    } else {
        format!("watcher: {text}")
    }
}

/// All regular files (and links to files) under `dir`, skipping `skip` (the output folder) and
/// hidden folders.
/// Unreadable folders are skipped (they will be retried when they change).
pub fn walk(dir: &Path, skip: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if d.starts_with(skip) {
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in rd.flatten() {
            let p = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            match entry.file_type() {
                Ok(t) if t.is_dir() && !hidden => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                // A link to a file is that file (a shared mesh linked into the folder was never
                // rigged: "0 ok"); a linked folder is not walked (a link loop never ends).
                Ok(t) if t.is_symlink() && p.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    /// The start-up scan finds a link to a mesh kept elsewhere, and does not walk a linked
    /// folder (which may link back).
    #[test]
    fn the_walk_finds_linked_files_but_not_linked_folders() {
        let dir = tempfile::tempdir().unwrap();
        let (root, elsewhere) = (dir.path().join("w"), dir.path().join("lib"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("hero.obj"), "v 0 0 0\n").unwrap();
        std::fs::write(root.join("own.obj"), "v 0 0 0\n").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("hero.obj"), root.join("hero.obj")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("lib")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
        std::os::unix::fs::symlink(root.join("gone.obj"), root.join("dangling.obj")).unwrap();
        let found = super::walk(&root, &root.join("rigged"));
        assert_eq!(found, vec![root.join("hero.obj"), root.join("own.obj")]);
    }
}
