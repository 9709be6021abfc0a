//! `update(&mut App, Msg) -> Vec<Effect>`: the one place state changes (style anchor P8). Keys and
//! mouse go to [`super::keys`]; watcher and job events are handled here. No I/O, no waiting.

use std::path::Path;
use std::sync::Arc;

use super::app::{App, Effect, LastRun, Msg, RigInfo, ThumbKey, ThumbRequest};
use crate::embed::hints::Hints;
use crate::progress::Stage;
use crate::raster::ThumbnailView;
use crate::rig::{Rig, Status};
use crate::watch::{JobDone, JobEvent, JobResult};

/// Apply one message; returns the effects to perform, in order.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut fx = match msg {
        Msg::Key(k) => super::keys::on_key(app, k),
        Msg::Mouse(m) => super::keys::on_mouse(app, m),
        Msg::Fs(c) => super::fs_update::on_fs(app, c),
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
                    fx = super::fs_update::recheck(app, &path);
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
    let fit = if rig.has_penalty() {
        format!("penalty {:.4}", rig.penalty.total)
    } else {
        format!("{} method", rig.method)
    };
    let mut line = format!(
        "{status}: {name} {fit} in {:.0} ms{}",
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
