//! Rig editing in the watch UI (issue 11; Bang et al. 2015 through [`crate::edit`]): the edit
//! mode's state and its update logic, without I/O. Keys and mouse are in [`super::edit_keys`];
//! the session itself (local re-solves, undo snapshots, saving) runs in the worker of
//! [`super::editor`], which answers every command with an [`EditEvent`], in order.
//!
//! The state keeps the edit stack (what undo pops and what a save writes), the redo stack
//! (redo re-applies the edit), the rig as the worker last returned it (the thumbnail shows it
//! with the selected joint's weights as a heat map) and the selection by joint name (names
//! survive inserts and deletes, indices do not).

use std::path::PathBuf;
use std::sync::Arc;

use super::app::{App, Effect};
use super::editor::{EditCmd, EditCmdBody, EditEvent};
use crate::edit::{Control, EditOp, EditOutcome};
use crate::raster::handle::RangeHandle;
use crate::raster::ViewKind;
use crate::rig::Rig;

/// The key that enters and leaves edit mode (`e` is the hint draft).
pub const EDIT_KEY: char = 'E';

/// What the arrow keys change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditMode {
    /// Move the selected joint.
    Joint,
    /// Move the selected joint's influence handle (range, facts §5.1).
    Range,
    /// ↑/↓ change the heat constant c (magnitude, §5.2).
    Magnitude,
    /// ↑/↓ change the bi-Laplacian share b (smoothness, §5.3).
    Smoothness,
}

impl EditMode {
    /// Name for the pane title and the detail pane.
    pub fn name(self) -> &'static str {
        match self {
            Self::Joint => "joint",
            Self::Range => "range",
            Self::Magnitude => "magnitude",
            Self::Smoothness => "smoothness",
        }
    }

    /// The next mode (`m`).
    pub fn next(self) -> Self {
        match self {
            Self::Joint => Self::Range,
            Self::Range => Self::Magnitude,
            Self::Magnitude => Self::Smoothness,
            Self::Smoothness => Self::Joint,
        }
    }
}

/// The edit mode of one asset.
#[derive(Clone, Debug)]
pub struct EditState {
    /// Session id (the worker's replies name it).
    pub id: u64,
    /// The mesh.
    pub mesh: PathBuf,
    /// The asset's rig run the session started from.
    pub run: u32,
    /// The rig as the worker last returned it (the asset's rig until the session is ready).
    pub rig: Arc<Rig>,
    /// Revision of `rig` (bumped by every reply that changes it; thumbnails are keyed by it).
    pub rev: u32,
    /// The session is open in the worker.
    pub ready: bool,
    /// Weight controls by joint name when the session opened (the sidecar's settings).
    pub base_controls: Vec<(String, Control)>,
    /// Edits applied or in flight, in order, with their sequence numbers.
    pub ops: Vec<(u64, EditOp)>,
    /// Undone edits, most recent last.
    pub redo: Vec<EditOp>,
    /// Next sequence number.
    pub next_seq: u64,
    /// Commands sent and not answered yet.
    pub pending: usize,
    /// The edits as last saved.
    pub saved: Vec<EditOp>,
    /// What the arrows change.
    pub mode: EditMode,
    /// The view whose plane the arrows move in.
    pub view: ViewKind,
    /// Moves carry the joint's descendants.
    pub with_descendants: bool,
    /// Show the selected joint's weights.
    pub heat: bool,
    /// Selected joint, by name.
    pub joint: String,
    /// Its index when last resolved (kept when the name disappears, e.g. after an undone insert).
    pub joint_index: usize,
    /// The last edit's result in plain words.
    pub last: Option<String>,
    /// Edits that were refused, newest last.
    pub problems: Vec<String>,
    /// Leaving with unsaved edits was asked once.
    pub confirm_leave: bool,
    /// Quit after leaving (the leave was a `q`).
    pub quit_after: bool,
    /// A mouse drag in progress: the view it started in and the dragged joint's position.
    pub drag: Option<(ViewKind, Option<[f64; 3]>)>,
}

/// Refused edits kept for the detail pane.
const PROBLEMS_KEPT: usize = 8;

impl EditState {
    /// Index of the selected joint in `rig`.
    pub fn index(&self) -> usize {
        self.rig
            .joints
            .iter()
            .position(|j| j.name == self.joint)
            .unwrap_or(self.joint_index)
            .min(self.rig.joints.len().saturating_sub(1))
    }

    /// Select joint `i` of the current rig.
    pub fn select(&mut self, i: usize) {
        if let Some(j) = self.rig.joints.get(i) {
            self.joint = j.name.clone();
            self.joint_index = i;
        }
    }

    /// The weight controls of joint `name` as the edits so far leave them.
    pub fn control(&self, name: &str) -> Control {
        let mut c = self
            .base_controls
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(Control::default, |(_, c)| *c);
        for (_, op) in &self.ops {
            match op {
                EditOp::Handle { joint, offset } if joint == name => c.handle = *offset,
                EditOp::Magnitude { joint, c: v } if joint == name => c.magnitude = *v,
                EditOp::Smoothness { joint, b } if joint == name => c.smoothness = *b,
                _ => {}
            }
        }
        c
    }

    /// Where joint `name` is or is about to be: the target of the last edit when it is a move of
    /// this joint still being solved (so fast key repeats accumulate), else its rig position.
    pub fn position(&self, name: &str) -> Option<[f64; 3]> {
        if self.pending > 0 {
            if let Some((_, EditOp::MoveJoint { joint, to, .. })) = self.ops.last() {
                if joint == name {
                    return Some(*to);
                }
            }
        }
        self.rig
            .joints
            .iter()
            .find(|j| j.name == name)
            .map(|j| j.position)
    }

    /// Edits not in the sidecar yet.
    pub fn dirty(&self) -> bool {
        self.ops.len() != self.saved.len()
            || self.ops.iter().zip(&self.saved).any(|((_, a), b)| a != b)
    }

    /// The draft marker of the thumbnail: the position a mouse drag is taking the joint to.
    pub fn marker(&self) -> Option<[f64; 3]> {
        match self.drag {
            Some((_, Some(p))) => Some(p),
            _ => None,
        }
    }

    /// In range mode, the selected joint's handle and the virtual bones it shapes: the segments
    /// from its parent's handle and to its children's handles (facts §5.1).
    pub fn range_handle(&self) -> Option<RangeHandle> {
        if self.mode != EditMode::Range {
            return None;
        }
        let joints = &self.rig.joints;
        let k = self.index();
        let at = |i: usize| {
            let h = self.control(&joints[i].name).handle;
            [0, 1, 2].map(|a| joints[i].position[a] + h[a])
        };
        let joint = joints.get(k)?.position;
        let handle = at(k);
        let mut reach: Vec<[[f64; 3]; 2]> = joints[k]
            .parent
            .map(|p| [at(p), handle])
            .into_iter()
            .collect();
        reach.extend(
            (0..joints.len())
                .filter(|&c| joints[c].parent == Some(k))
                .map(|c| [handle, at(c)]),
        );
        Some(RangeHandle {
            joint,
            handle,
            reach,
        })
    }
}

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
    let mut e = EditState {
        id: app.edit_sessions,
        mesh: mesh.clone(),
        run,
        rig: rig.clone(),
        rev: 0,
        ready: false,
        base_controls: Vec::new(),
        ops: Vec::new(),
        redo: Vec::new(),
        next_seq: 1,
        pending: 1,
        saved: Vec::new(),
        mode: EditMode::Joint,
        view: ViewKind::Front,
        with_descendants: false,
        heat: true,
        joint: String::new(),
        joint_index: 0,
        last: None,
        problems: Vec::new(),
        confirm_leave: false,
        quit_after: false,
        drag: None,
    };
    e.select(joint.min(rig.joints.len().saturating_sub(1)));
    app.draft = None;
    app.input = None;
    app.message = Some("edit mode: preparing the editing session…".into());
    let fx = vec![cmd(&e, EditCmdBody::Open { mesh, rig })];
    app.edit = Some(e);
    fx
}

/// Leave edit mode; with unsaved edits the first request only warns.
pub fn leave(app: &mut App, quit: bool) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    if e.dirty() && !e.confirm_leave {
        e.confirm_leave = true;
        e.quit_after = quit;
        let n = e.ops.len();
        app.message = Some(format!(
            "{n} unsaved edit(s): w saves them; press again to leave without saving"
        ));
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
    app.message = Some(format!("saving {} edit(s)…", ops.len()));
    vec![cmd(e, EditCmdBody::Save { ops })]
}

/// The worker's reply.
pub fn on_event(app: &mut App, ev: EditEvent) {
    let Some(e) = app.edit.as_mut() else {
        return;
    };
    let id = match &ev {
        EditEvent::Ready { session, .. }
        | EditEvent::OpenFailed { session, .. }
        | EditEvent::Applied { session, .. }
        | EditEvent::Refused { session, .. }
        | EditEvent::Undone { session, .. }
        | EditEvent::Saved { session, .. } => *session,
    };
    if id != e.id {
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
        EditEvent::Refused { seq, error, .. } => {
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

/// A save finished: the stack is clean, and the asset shows the saved rig and outputs.
fn saved(app: &mut App, s: super::editor::Saved) {
    let Some(e) = app.edit.as_mut() else {
        return;
    };
    e.saved = e.saved_ops_now();
    set_rig(e, s.rig.clone());
    let mesh = e.mesh.clone();
    let line = format!(
        "saved {} edit(s) to {}; wrote {} output file(s)",
        s.edits,
        app.rel(&s.sidecar),
        s.outputs.len()
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
        "{}: {how} re-solve of {} of {} vertices, {} weight column(s), {:.1} ms",
        o.op, o.region, o.vertices, o.columns, o.total_ms
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
        format!(" ({} unsaved edit(s) dropped)", e.ops.len())
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
