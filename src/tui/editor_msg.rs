//! The commands the watch UI sends the rig-editing worker ([`super::editor`]) and the replies it
//! gets back, one per command, in order.

use std::path::PathBuf;
use std::sync::Arc;

use crate::edit::{Control, EditOp, EditOutcome};
use crate::rig::Rig;

/// A command for the edit worker; `session` names the edit session it belongs to.
#[derive(Clone, Debug)]
pub struct EditCmd {
    /// Edit session id (commands of a closed session are dropped).
    pub session: u64,
    /// What to do.
    pub body: EditCmdBody,
}

/// The commands.
#[derive(Clone, Debug)]
pub enum EditCmdBody {
    /// Start a session on `rig` (the asset's current rig) over the mesh file `mesh`.
    Open {
        /// The mesh file.
        mesh: PathBuf,
        /// The rig being edited.
        rig: Arc<Rig>,
    },
    /// Apply edit number `seq`.
    Apply {
        /// Sequence number (undo names it).
        seq: u64,
        /// The edit.
        op: EditOp,
    },
    /// Undo edit `seq` (ignored unless it is the last one applied).
    Undo {
        /// Sequence number.
        seq: u64,
    },
    /// Write the sidecar (the log found at open plus `ops`) and the outputs.
    Save {
        /// The session's edits in order.
        ops: Vec<EditOp>,
    },
    /// End the session.
    Close,
}

/// A reply of the edit worker, one per command.
pub enum EditEvent {
    /// The session is open: the rig as the session sees it and each joint's weight controls.
    Ready {
        /// Session id.
        session: u64,
        /// The rig (joints, skin).
        rig: Arc<Rig>,
        /// Controls per joint (parallel to the rig's joints), from the sidecar's settings.
        controls: Vec<Control>,
        /// Milliseconds to open.
        ms: f64,
    },
    /// The session could not be opened.
    OpenFailed {
        /// Session id.
        session: u64,
        /// Why, in plain words.
        error: String,
    },
    /// An edit was applied.
    Applied {
        /// Session id.
        session: u64,
        /// Edit number.
        seq: u64,
        /// The edited rig.
        rig: Arc<Rig>,
        /// Region size and times.
        outcome: EditOutcome,
    },
    /// An edit was refused (the rig is unchanged).
    Refused {
        /// Session id.
        session: u64,
        /// Edit number.
        seq: u64,
        /// Why.
        error: String,
    },
    /// An undo finished; `rig` is the rig now.
    Undone {
        /// Session id.
        session: u64,
        /// Edit number undone (`None`: there was nothing left to undo).
        seq: Option<u64>,
        /// The rig.
        rig: Arc<Rig>,
    },
    /// A save finished.
    Saved {
        /// Session id.
        session: u64,
        /// The sidecar and outputs written, and the saved rig (globally re-solved), or an error.
        result: Result<Saved, String>,
    },
}

/// What a save wrote.
pub struct Saved {
    /// The sidecar.
    pub sidecar: PathBuf,
    /// The sidecar's stat just after the write (its echo from the watcher re-rigs nothing).
    pub sidecar_stat: Option<crate::mesh::load::FileStat>,
    /// Edits in the sidecar.
    pub edits: usize,
    /// Outputs written.
    pub outputs: Vec<PathBuf>,
    /// The rig written (after the global refresh).
    pub rig: Arc<Rig>,
}

impl EditEvent {
    /// The session the reply belongs to.
    pub fn session(&self) -> u64 {
        match self {
            Self::Ready { session, .. }
            | Self::OpenFailed { session, .. }
            | Self::Applied { session, .. }
            | Self::Refused { session, .. }
            | Self::Undone { session, .. }
            | Self::Saved { session, .. } => *session,
        }
    }
}
