//! Watcher events in the one state ([`super::update`]): a mesh ready or gone, a companion file
//! changed, an earlier run's output skipped, a hints sidecar saved, the watched folder gone or
//! back. No I/O, no waiting: each returns the effects the runtime carries out.

use std::path::{Path, PathBuf};

use super::app::{App, Effect};
use crate::embed::hints::Hints;
use crate::watch::FsChange;

pub(super) fn on_fs(app: &mut App, change: FsChange) -> Vec<Effect> {
    match change {
        FsChange::Ready(path) => on_ready(app, path),
        FsChange::File { path, stat } => {
            let users = app.companions.file_changed(&path, stat);
            let what = if stat.is_some() { "changed" } else { "gone" };
            requeue(app, users, &path, what)
        }
        FsChange::Empty(path) => on_empty(app, path),
        FsChange::Removed(path) => on_removed(app, path),
        FsChange::Output { path, generator } => on_output(app, path, &generator),
        FsChange::HintsChanged { mesh, text } => on_hints_changed(app, mesh, text),
        FsChange::ScanDone(meshes) => {
            for m in &meshes {
                app.ensure(m);
            }
            app.scan_done = true;
            app.push_log(format!(
                "scan: {} in {}",
                crate::util::count(meshes.len(), "mesh", "meshes"),
                app.root.display()
            ));
            Vec::new()
        }
        FsChange::RootGone(root) => {
            let line = format!(
                "watched folder {} is gone (deleted or moved); waiting for it to come back",
                root.display()
            );
            app.push_log(line.clone());
            app.message = Some(line); // stays until the folder is back
            Vec::new()
        }
        FsChange::RootBack(root) => {
            app.message = None;
            app.push_log(format!(
                "watched folder {} is back; watching it again",
                root.display()
            ));
            Vec::new()
        }
        FsChange::Error(e) => {
            app.push_log(format!("watcher: {e}"));
            app.message = Some(e.clone());
            Vec::new()
        }
    }
}

/// A mesh file of 0 bytes: counted as empty, not queued, until its content arrives.
fn on_empty(app: &mut App, path: PathBuf) -> Vec<Effect> {
    let i = app.ensure(&path);
    let a = &mut app.assets[i];
    a.empty = true;
    a.queued = false;
    app.push_log(format!(
        "empty: {} (0 bytes; waiting for its content)",
        app.rel(&path)
    ));
    // A job on its earlier content is moot.
    vec![Effect::Cancel(path)]
}

/// A file Geppetto wrote (an earlier run's output): skipped, and logged once.
fn on_output(app: &mut App, path: PathBuf, generator: &str) -> Vec<Effect> {
    // A source the file replaced (`cp rigged/hero.glb hero.glb`) is no longer an asset.
    let fx = if app.find(&path).is_some() {
        drop_row(app, &path)
    } else {
        Vec::new()
    };
    app.push_log(format!(
        "skipped: {} (written by {generator}: an earlier run's output, not a source mesh)",
        app.rel(&path)
    ));
    fx
}

/// A mesh is new or changed: rig it, and the assets that read it as a companion (rare, but a
/// file is a file).
fn on_ready(app: &mut App, path: PathBuf) -> Vec<Effect> {
    let i = app.ensure(&path);
    app.assets[i].queued = true;
    app.assets[i].empty = false;
    app.push_log(format!("changed: {}", app.rel(&path)));
    let users = app.companions.dependents_of(&path);
    let mut fx = vec![Effect::Rig(path.clone())];
    fx.extend(requeue(app, users, &path, "changed"));
    fx
}

/// Re-rig `assets`, whose last loads read (or looked for) `file`, which changed or is gone. An
/// asset already queued or rigging is left alone: a queued job reads the new file, and a running
/// one is compared with it when it finishes ([`recheck`]).
fn requeue(app: &mut App, assets: Vec<PathBuf>, file: &Path, what: &str) -> Vec<Effect> {
    let mut fx = Vec::new();
    for asset in assets {
        let Some(i) = app.find(&asset) else { continue };
        let a = &mut app.assets[i];
        if asset == file || a.empty || a.queued || a.running.is_some() {
            continue;
        }
        a.queued = true;
        let line = format!(
            "{what}: {} (read by {}); re-rigging",
            app.rel(file),
            app.rel(&asset)
        );
        app.push_log(line);
        fx.push(Effect::Rig(asset));
    }
    fx
}

/// A rig finished: if a companion it read changed meanwhile (a `.bin` copied in after the
/// `.gltf`, a texture re-saved mid-rig), rig again.
pub(super) fn recheck(app: &mut App, asset: &Path) -> Vec<Effect> {
    let Some(file) = app.companions.stale(asset).map(Path::to_path_buf) else {
        return Vec::new();
    };
    requeue(
        app,
        vec![asset.to_path_buf()],
        &file,
        "changed while rigging",
    )
}

/// A mesh was deleted: forget it, move the selection and drop its draft, cancel its job; re-rig
/// the assets that read it as a companion.
fn on_removed(app: &mut App, path: PathBuf) -> Vec<Effect> {
    let fx = drop_row(app, &path);
    app.push_log(format!("removed: {}", app.rel(&path)));
    fx
}

/// `path` is no longer a source mesh: its row goes, its job is cancelled and the assets that
/// read it as a companion re-rig.
fn drop_row(app: &mut App, path: &Path) -> Vec<Effect> {
    let path = path.to_path_buf();
    let users = app.companions.dependents_of(&path);
    app.companions.forget(&path);
    app.assets.retain(|a| a.path != path);
    if app.selected.as_deref() == Some(&path) {
        let first = app.order().first().map(|&i| app.assets[i].path.clone());
        app.selected = first;
    }
    if app.draft.as_ref().is_some_and(|d| d.mesh == path) {
        app.draft = None;
    }
    let mut fx = requeue(app, users, &path, "gone");
    fx.insert(0, Effect::Cancel(path));
    fx
}

/// A mesh's hints sidecar changed on disk: take the new hints (unless it is the echo of our own
/// write) and re-rig.
fn on_hints_changed(app: &mut App, mesh: PathBuf, text: Option<String>) -> Vec<Effect> {
    let Some(i) = app.find(&mesh) else {
        return Vec::new();
    };
    let a = &mut app.assets[i];
    if a.hints_text == text {
        return Vec::new(); // the echo of our own write
    }
    a.hints_text = text.clone();
    if let Some(t) = &text {
        if let Ok(h) = Hints::parse(t, &mesh) {
            a.hints = h;
        }
    } else {
        a.hints = Hints::default();
    }
    // No job of this mesh has started yet: its first rig (queued, or coming with the mesh's
    // "changed" after the start-up scan) reads the sidecar when it starts. Every start used
    // to log "hints edited" for each sidecar and start a rig that the mesh's own "changed"
    // then cancelled ("cancelled: … (superseded)").
    if a.runs == 0 && a.job.is_none() {
        return Vec::new();
    }
    a.queued = true;
    app.push_log(format!("hints edited: {}", app.rel(&mesh)));
    vec![Effect::Rig(mesh)]
}
