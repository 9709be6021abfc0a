//! `update(&mut App, Msg) -> Vec<Effect>`: the one place state changes (style anchor P8). Keys and
//! mouse go to [`super::keys`]; watcher and job events are handled here. No I/O, no waiting.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::app::{App, Effect, LastRun, Msg, RigInfo, ThumbKey, ThumbRequest};
use crate::embed::hints::Hints;
use crate::progress::Stage;
use crate::raster::ThumbnailView;
use crate::rig::{Rig, Status};
use crate::watch::{FsChange, JobDone, JobEvent, JobResult};

/// Apply one message; returns the effects to perform, in order.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut fx = match msg {
        Msg::Key(k) => super::keys::on_key(app, k),
        Msg::Mouse(m) => super::keys::on_mouse(app, m),
        Msg::Fs(c) => on_fs(app, c),
        Msg::Job(e) => on_job(app, e),
        Msg::Thumb(t) => {
            if app.thumb_requested.as_ref() == Some(&t.key) {
                app.thumb = Some(*t);
            }
            Vec::new()
        }
        Msg::HintsSaved { mesh, result } => {
            match result {
                Ok(()) => app.push_log(format!(
                    "hints saved: {}",
                    app.rel(&crate::embed::hints::sidecar_path(&mesh))
                )),
                Err(e) => app.message = Some(format!("could not save hints: {e}")),
            }
            Vec::new()
        }
        Msg::Play(ev) => {
            super::play::on_event(app, *ev);
            Vec::new()
        }
        Msg::Edit(ev) => {
            super::edit::on_event(app, *ev);
            Vec::new()
        }
        Msg::Tick(now) => {
            app.now = now;
            super::play::on_tick(app);
            Vec::new()
        }
        Msg::Resize(w, h) => {
            app.size = (w, h);
            Vec::new()
        }
    };
    fx.extend(super::edit::sync(app));
    fx.extend(super::play::sync(app));
    fx.extend(thumb_effect(app));
    fx
}

fn on_fs(app: &mut App, change: FsChange) -> Vec<Effect> {
    match change {
        FsChange::Ready(path) => on_ready(app, path),
        FsChange::File { path, stat } => {
            let users = app.companions.file_changed(&path, stat);
            let what = if stat.is_some() { "changed" } else { "gone" };
            requeue(app, users, &path, what)
        }
        FsChange::Empty(path) => {
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
        FsChange::Removed(path) => on_removed(app, path),
        FsChange::Output { path, generator } => {
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
fn recheck(app: &mut App, asset: &Path) -> Vec<Effect> {
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

fn on_job(app: &mut App, ev: JobEvent) -> Vec<Effect> {
    let now = app.now;
    let mut fx = Vec::new();
    match ev {
        JobEvent::Started { path, id } => {
            if let Some(a) = app.asset_mut(&path) {
                a.job = Some(id);
                a.queued = false;
                a.running = Some((Stage::Load, 0.0));
                a.retrying = false;
                a.started = Some(now);
            }
        }
        JobEvent::Stage { path, stage, .. } => {
            if let Some(a) = app.asset_mut(&path) {
                a.running = Some((stage, 0.0));
                a.retrying = false;
            }
        }
        JobEvent::Retry { path, .. } => {
            if let Some(a) = app.asset_mut(&path) {
                a.retrying = true;
            }
        }
        JobEvent::Fraction { path, fraction, .. } => {
            if let Some(a) = app.asset_mut(&path) {
                if let Some((_, f)) = &mut a.running {
                    *f = fraction;
                }
            }
        }
        JobEvent::Finished {
            path,
            id,
            result,
            companions,
        } => {
            let stale = app
                .find(&path)
                .is_some_and(|i| app.assets[i].job.is_some_and(|j| j > id));
            if !stale && app.find(&path).is_some() {
                let cancelled = matches!(result, JobResult::Cancelled);
                if let Some(list) = companions {
                    app.companions.record(&path, list);
                }
                finished(app, &path, result);
                if !cancelled {
                    fx = recheck(app, &path);
                }
            }
        }
    }
    fx
}

fn finished(app: &mut App, path: &Path, result: JobResult) {
    let name = app.rel(path);
    let Some(a) = app.asset_mut(path) else {
        return;
    };
    a.running = None;
    a.retrying = false;
    let line = match result {
        JobResult::Cancelled => {
            // Superseded: a newer job is queued, unless the file was emptied (nothing to rig).
            a.queued = !a.empty;
            format!("cancelled: {name} (superseded)")
        }
        JobResult::Failed(e) => {
            a.runs += 1;
            a.last = Some(LastRun::Failed(e.clone()));
            format!("failed: {name}: {e}")
        }
        JobResult::Done(done) => {
            a.runs += 1;
            let JobDone {
                rig,
                mesh,
                reused_discretization,
                outputs,
                output_errors,
                ..
            } = *done;
            let line = done_line(&name, &rig, reused_discretization, &output_errors);
            // The hints this rig used are the sidecar's, unless a newer edit is already queued.
            if !a.queued {
                a.hints = Hints {
                    hints: rig.hints.clone(),
                    skeleton: a.hints.skeleton.clone(),
                    curve: a.hints.curve.clone(),
                };
            }
            a.last = Some(LastRun::Rigged(Box::new(RigInfo {
                rig: Arc::new(rig),
                mesh,
                reused: reused_discretization,
                outputs,
                output_errors,
            })));
            line
        }
    };
    app.push_log(line);
}

/// The log line of a finished rig: status, penalty, time, whether it re-ran from the embedding,
/// and the outputs that could not be written.
fn done_line(name: &str, rig: &Rig, reused: bool, output_errors: &[String]) -> String {
    let status = match rig.status {
        Status::Ok => "ok",
        Status::LowConfidence => "low confidence",
    };
    let mut line = format!(
        "{status}: {name} penalty {:.4} in {:.0} ms{}",
        rig.penalty.total,
        rig.timings_ms.get("total").copied().unwrap_or(0.0),
        if reused {
            " (re-run from the embedding)"
        } else {
            ""
        }
    );
    // The log line is all a headless run (or a glance at the status line) shows: outputs
    // that could not be written must be named there, not only in the detail pane.
    if let Some(first) = output_errors.first() {
        line.push_str(&format!(
            "; {} NOT written: {first}",
            crate::util::count(output_errors.len(), "output", "outputs")
        ));
    }
    line
}

/// Request a thumbnail when what it should show changed.
fn thumb_effect(app: &mut App) -> Option<Effect> {
    if app.headless {
        return None;
    }
    let area = super::layout::of(app).thumb;
    let a = app.current()?;
    let info = a.rig()?;
    if area.width < 4 || area.height < 2 {
        return None;
    }
    let edit = super::edit::current(app);
    let rig = edit.map_or(&info.rig, |e| &e.rig);
    let joint = match edit {
        Some(e) => e.index(),
        None => app.joint().min(rig.joints.len().saturating_sub(1)),
    };
    let draft = match edit {
        Some(e) => e.marker(),
        None => app
            .draft
            .as_ref()
            .filter(|d| d.mesh == a.path)
            .map(|d| d.pos),
    };
    let key = ThumbKey {
        mesh: a.path.clone(),
        run: a.runs,
        view: ThumbnailView {
            width: u32::from(area.width) * u32::from(app.cell_px.0),
            height: u32::from(area.height) * u32::from(app.cell_px.1),
            selected: (!rig.joints.is_empty()).then_some(joint),
            heat: edit.map_or(app.heat, |e| e.heat),
            draft,
            handle: edit.and_then(|e| e.range_handle()),
        },
        cells: (area.width, area.height),
        edit: edit.map_or(0, |e| e.rev + 1),
    };
    if app.thumb_requested.as_ref() == Some(&key) {
        return None;
    }
    let req = ThumbRequest {
        key: key.clone(),
        mesh: info.mesh.clone(),
        rig: rig.clone(),
    };
    app.thumb_requested = Some(key);
    Some(Effect::Thumbnail(Box::new(req)))
}
