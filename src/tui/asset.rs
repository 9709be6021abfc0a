//! One watched mesh in the UI state ([`super::app::App`]): its queue and run state, its last
//! rig or failure, its joint selection and sidecar hints, and the status its list row shows.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::embed::hints::Hints;
use crate::mesh::Mesh;
use crate::progress::Stage;
use crate::rig::{Rig, Status};

/// The last finished rig of an asset.
#[derive(Clone, Debug)]
pub struct RigInfo {
    /// The rig (mesh frame).
    pub rig: Arc<Rig>,
    /// The input mesh.
    pub mesh: Arc<Mesh>,
    /// Discretization reused (a hint re-run started at the embedding).
    pub reused: bool,
    /// Files written.
    pub outputs: Vec<PathBuf>,
    /// Outputs that failed.
    pub output_errors: Vec<String>,
}

/// How the last run ended.
#[derive(Clone, Debug)]
pub enum LastRun {
    /// A rig (status inside).
    Rigged(Box<RigInfo>),
    /// An error in plain words.
    Failed(String),
}

/// One watched mesh.
#[derive(Clone, Debug)]
pub struct Asset {
    /// Absolute path.
    pub path: PathBuf,
    /// Path relative to the watched folder (display name).
    pub name: String,
    /// A rig is queued.
    pub queued: bool,
    /// Running: the current stage and its fraction.
    pub running: Option<(Stage, f32)>,
    /// The running job is in its finer retry ([`crate::progress::Progress::retry`]).
    pub retrying: bool,
    /// When the running job started (app clock).
    pub started: Option<Instant>,
    /// Id of the latest job started for this asset (events of older jobs are stale).
    pub job: Option<u64>,
    /// The last finished run.
    pub last: Option<LastRun>,
    /// Finished runs so far (including failures).
    pub runs: u32,
    /// Selected joint index of this asset (each asset keeps its own selection).
    pub joint: usize,
    /// The sidecar hints as last written or read.
    pub hints: Hints,
    /// The sidecar text as last written or read (to ignore the watcher's echo of our own writes).
    pub hints_text: Option<String>,
    /// The file is empty (0 bytes): waiting for its content, nothing to rig.
    pub empty: bool,
}

/// The row status shown in the list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowStatus {
    /// Waiting for a worker (or for the file to settle).
    Queued,
    /// The file is empty (0 bytes): waiting for its content.
    Empty,
    /// Rigging: stage and fraction.
    Running(Stage, f32),
    /// Rigging again on a finer discretization: the first fit was low confidence.
    Retrying,
    /// Rigged, confident.
    Ok,
    /// Rigged, but something looks wrong.
    LowConfidence,
    /// Rigged, but some outputs could not be written (the detail pane says why).
    NotWritten,
    /// Failed.
    Failed,
}

impl Asset {
    /// A mesh just seen at `path` under the watched folder `root`: queued, never rigged.
    pub(super) fn new(path: &Path, root: &Path) -> Self {
        let name = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        Self {
            path: path.to_path_buf(),
            name,
            queued: true,
            running: None,
            retrying: false,
            started: None,
            job: None,
            last: None,
            runs: 0,
            joint: 0,
            hints: Hints::default(),
            hints_text: None,
            empty: false,
        }
    }

    /// The status shown in the list.
    pub fn status(&self) -> RowStatus {
        if let Some((s, f)) = self.running {
            return if self.retrying {
                RowStatus::Retrying
            } else {
                RowStatus::Running(s, f)
            };
        }
        if self.queued {
            return RowStatus::Queued;
        }
        if self.empty {
            return RowStatus::Empty;
        }
        match &self.last {
            None => RowStatus::Queued,
            Some(LastRun::Failed(_)) => RowStatus::Failed,
            // Outputs the user expects and does not get outrank the rig's own status.
            Some(LastRun::Rigged(r)) if !r.output_errors.is_empty() => RowStatus::NotWritten,
            Some(LastRun::Rigged(r)) => match r.rig.status {
                Status::Ok => RowStatus::Ok,
                Status::LowConfidence => RowStatus::LowConfidence,
            },
        }
    }

    /// The last rig, if the last run produced one.
    pub fn rig(&self) -> Option<&RigInfo> {
        match &self.last {
            Some(LastRun::Rigged(r)) => Some(r),
            _ => None,
        }
    }
}
