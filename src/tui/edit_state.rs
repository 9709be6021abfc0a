//! The rig edit mode's state in the watch UI ([`super::edit`] holds its update logic): what the
//! arrows change, the edit and redo stacks, the rig as the worker last returned it, and the
//! selection by joint name (names survive inserts and deletes, indices do not).

use std::path::PathBuf;
use std::sync::Arc;

use crate::edit::{Control, EditOp};
use crate::raster::handle::RangeHandle;
use crate::raster::ViewKind;
use crate::rig::Rig;

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

impl EditState {
    /// A session `id` starting on `rig`, the asset's rig run `run` of `mesh`: waiting for the
    /// worker (one command pending, the open), no edits, joint mode in the front view.
    pub fn new(id: u64, mesh: PathBuf, run: u32, rig: Arc<Rig>) -> Self {
        Self {
            id,
            mesh,
            run,
            rig,
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
        }
    }

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
