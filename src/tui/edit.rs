//! Rig editing in the watch UI (issue 11; Bang et al. 2015 through [`crate::edit`]): the edit
//! mode's state and its update logic, without I/O. Keys and mouse are in [`super::edit_keys`];
//! the session itself (local re-solves, undo snapshots, saving) runs in the worker of
//! [`super::editor`], which answers every command with an [`EditEvent`], in order.
//!
//! The state keeps the edit stack (what undo pops and what a save writes), the redo stack
//! (redo re-applies the edit), the rig as the worker last returned it (the thumbnail shows it
//! with the selected joint's weights as a heat map) and the selection by joint name (names
//! survive inserts and deletes, indices do not).

use std::sync::Arc;

use super::app::{App, Effect};
pub use super::edit_state::{EditMode, EditState};
use super::editor::{EditCmd, EditCmdBody, EditEvent};
use crate::edit::{EditOp, EditOutcome};
use crate::rig::Rig;

/// The key that enters and leaves edit mode (`e` is the hint draft).
pub const EDIT_KEY: char = 'E';

/// Refused edits kept for the detail pane.
const PROBLEMS_KEPT: usize = 8;

fn cmd(e: &EditState, body: EditCmdBody) -> Effect {
    Effect::Edit(Box::new(EditCmd {
        session: e.id,
        body,
    }))
}

/// Enter edit mode on the selected asset's rig.
pub fn enter(app: &mut App) -> Vec<Effect> {
    let Some(a) = app.current() else {
        return Vec::new();
    };
    let Some(info) = a.rig().filter(|r| r.rig.skin.is_some()) else {
        app.message = Some("no skinned rig to edit yet".into());
        return Vec::new();
    };
    let rig = info.rig.clone();
    let (mesh, run, joint) = (a.path.clone(), a.runs, a.joint);
    app.edit_sessions += 1;
    let mut e = EditState::new(app.edit_sessions, mesh.clone(), run, rig.clone());
    e.select(joint.min(rig.joints.len().saturating_sub(1)));
    app.draft = None;
    app.input = None;
    app.message = Some("edit mode: preparing the editing session…".into());
    let fx = vec![cmd(&e, EditCmdBody::Open { mesh, rig })];
    app.edit = Some(e);
    fx
}

/// Leave edit mode; with unsaved edits the first request only warns, and only the same request
/// again confirms it (`E` then `q` must not quit and drop the edits: the `q` was never asked).
pub fn leave(app: &mut App, quit: bool) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    if e.dirty() && !(e.confirm_leave && e.quit_after == quit) {
        e.confirm_leave = true;
        e.quit_after = quit;
        let n = e.ops.len();
        let again = if quit {
            "press q again to quit"
        } else {
            "press E again to leave"
        };
        let them = if n == 1 { "it" } else { "them" };
        let n = crate::util::count(n, "unsaved edit", "unsaved edits");
        app.message = Some(format!("{n}: w saves {them}; {again} without saving"));
        return Vec::new();
    }
    let Some(e) = app.edit.take() else {
        return Vec::new();
    };
    let i = e.index();
    if let Some(a) = app.asset_mut(&e.mesh) {
        a.joint = i;
    }
    app.message = Some("left edit mode".into());
    let mut fx = vec![cmd(&e, EditCmdBody::Close)];
    if quit {
        app.quit = true;
        fx.push(Effect::Quit);
    }
    fx
}

/// Send `op` as a new edit (clears the redo stack).
pub fn push(app: &mut App, op: EditOp) -> Vec<Effect> {
    if let Some(e) = app.edit.as_mut() {
        e.redo.clear();
    }
    issue(app, op)
}

fn issue(app: &mut App, op: EditOp) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    if !e.ready {
        app.message = Some("the editing session is still opening…".into());
        return Vec::new();
    }
    let seq = e.next_seq;
    e.next_seq += 1;
    e.pending += 1;
    e.confirm_leave = false;
    e.ops.push((seq, op.clone()));
    app.message = Some(format!("{}: solving…", op.label()));
    vec![cmd(e, EditCmdBody::Apply { seq, op })]
}

/// Undo the last edit.
pub fn undo(app: &mut App) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    let Some((seq, op)) = e.ops.pop() else {
        app.message = Some("nothing to undo".into());
        return Vec::new();
    };
    e.pending += 1;
    e.confirm_leave = false;
    app.message = Some(format!("undo {}", op.label()));
    e.redo.push(op);
    vec![cmd(e, EditCmdBody::Undo { seq })]
}

/// Redo: re-apply the last undone edit.
pub fn redo(app: &mut App) -> Vec<Effect> {
    let Some(op) = app.edit.as_mut().and_then(|e| e.redo.pop()) else {
        app.message = Some("nothing to redo".into());
        return Vec::new();
    };
    issue(app, op)
}

/// Save: the sidecar and the outputs (only on this user action).
pub fn save(app: &mut App) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    if !e.ready {
        return Vec::new();
    }
    e.pending += 1;
    let ops: Vec<EditOp> = e.ops.iter().map(|(_, op)| op.clone()).collect();
    let n = crate::util::count(ops.len(), "edit", "edits");
    app.message = Some(format!("saving {n}…"));
    vec![cmd(e, EditCmdBody::Save { ops })]
}

/// The worker's reply.
pub fn on_event(app: &mut App, ev: EditEvent) {
    let Some(e) = app.edit.as_mut() else {
        return;
    };
    if ev.session() != e.id {
        return; // a closed session's reply
    }
    e.pending = e.pending.saturating_sub(1);
    let message = match ev {
        EditEvent::Ready {
            rig, controls, ms, ..
        } => {
            e.base_controls = rig
                .joints
                .iter()
                .map(|j| j.name.clone())
                .zip(controls)
                .collect();
            set_rig(e, rig);
            e.ready = true;
            format!("edit mode ready ({ms:.0} ms): select a joint, move it with the arrows")
        }
        EditEvent::OpenFailed { error, .. } => {
            app.edit = None;
            format!("cannot edit this rig: {error}")
        }
        EditEvent::Applied { rig, outcome, .. } => {
            set_rig(e, rig);
            let line = outcome_line(&outcome);
            e.last = Some(line.clone());
            line
        }
        EditEvent::Refused { seq, error, .. } => refused(e, seq, &error),
        EditEvent::Undone { rig, seq, .. } => {
            set_rig(e, rig);
            if seq.is_some() {
                "undone".into()
            } else {
                "nothing left that can be undone".into()
            }
        }
        EditEvent::Saved { result, .. } => match result {
            Ok(s) => return saved(app, s),
            Err(err) => format!("could not save the edits: {err}"),
        },
    };
    app.message = Some(message);
}

/// Edit `seq` was refused: it leaves the stack and joins the problems shown (the last
/// [`PROBLEMS_KEPT`]); returns the line saying so.
fn refused(e: &mut EditState, seq: u64, error: &str) -> String {
    let label = e
        .ops
        .iter()
        .find(|(s, _)| *s == seq)
        .map(|(_, o)| o.label());
    e.ops.retain(|(s, _)| *s != seq);
    let line = format!("{} refused: {error}", label.unwrap_or_default());
    e.problems.push(line.clone());
    if e.problems.len() > PROBLEMS_KEPT {
        e.problems.remove(0);
    }
    line
}

/// A save finished: the stack is clean, and the asset shows the saved rig and outputs.
fn saved(app: &mut App, s: super::editor::Saved) {
    let Some(e) = app.edit.as_mut() else {
        return;
    };
    e.saved = e.saved_ops_now();
    set_rig(e, s.rig.clone());
    let mesh = e.mesh.clone();
    app.companions.wrote(&mesh, &s.sidecar, s.sidecar_stat);
    let line = format!(
        "saved {} to {}; wrote {}",
        crate::util::count(s.edits, "edit", "edits"),
        app.rel(&s.sidecar),
        crate::util::count(s.outputs.len(), "output file", "output files")
    );
    if let Some(info) = app.asset_mut(&mesh).and_then(|a| match &mut a.last {
        Some(super::app::LastRun::Rigged(r)) => Some(r),
        _ => None,
    }) {
        info.rig = s.rig;
        info.outputs = s.outputs;
    }
    app.push_log(line.clone());
    app.message = Some(line);
}

impl EditState {
    fn saved_ops_now(&self) -> Vec<EditOp> {
        self.ops.iter().map(|(_, op)| op.clone()).collect()
    }
}

fn set_rig(e: &mut EditState, rig: Arc<Rig>) {
    let i = e.index();
    e.rig = rig;
    e.rev += 1;
    // Keep the selection by name; a vanished joint leaves the index (clamped).
    match e.rig.joints.iter().position(|j| j.name == e.joint) {
        Some(k) => e.joint_index = k,
        None => e.select(i.min(e.rig.joints.len().saturating_sub(1))),
    }
}

/// One line for an edit's result: region, columns, time.
pub fn outcome_line(o: &EditOutcome) -> String {
    let how = if o.global { "global" } else { "local" };
    format!(
        "{}: {how} re-solve of {} of {} vertices, {}, {:.1} ms",
        o.op,
        o.region,
        o.vertices,
        crate::util::count(o.columns, "weight column", "weight columns"),
        o.total_ms
    )
}

/// After every message: close the edit mode whose asset vanished, is no longer selected, or was
/// re-rigged (its session edits an outdated rig).
pub fn sync(app: &mut App) -> Option<Effect> {
    let e = app.edit.as_ref()?;
    let why = match app.find(&e.mesh).map(|i| &app.assets[i]) {
        None => "the mesh was removed",
        Some(a) if a.runs != e.run => "the mesh was re-rigged",
        Some(_) if app.selected.as_ref() != Some(&e.mesh) => "another asset was selected",
        Some(_) => return None,
    };
    let e = app.edit.take()?;
    let lost = if e.dirty() {
        let n = crate::util::count(e.ops.len(), "unsaved edit", "unsaved edits");
        format!(" ({n} dropped)")
    } else {
        String::new()
    };
    app.message = Some(format!("edit mode closed: {why}{lost}"));
    Some(cmd(&e, EditCmdBody::Close))
}

/// The edit state of the selected asset, if it is being edited.
pub fn current(app: &App) -> Option<&EditState> {
    app.edit
        .as_ref()
        .filter(|e| app.selected.as_ref() == Some(&e.mesh))
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
