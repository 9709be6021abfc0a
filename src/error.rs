//! The library's error type: every failure names the file and the problem.

use std::path::PathBuf;

use thiserror::Error;

use crate::discretize::DiscretizeError;
use crate::embed::hints::HintsError;
use crate::embed::EmbedError;
use crate::mesh::{LoadError, PrepareError};
use crate::skeleton::SkeletonError;
use crate::skin::SkinError;

/// Why rigging one asset failed.
#[derive(Debug, Error)]
pub enum RigError {
    /// The mesh file could not be read.
    #[error("{}: {source}", path.display())]
    Load {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: LoadError,
        /// The files besides the mesh that the load read or looked for before failing (a
        /// missing or short `.bin`): a watcher re-rigs when one of them changes.
        companions: Vec<crate::mesh::load::Companion>,
    },
    /// The mesh is empty or has no volume.
    #[error("{}: {source}", path.display())]
    Prepare {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: PrepareError,
    },
    /// No interior could be sampled.
    #[error("{}: {source}", path.display())]
    Discretize {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: DiscretizeError,
    },
    /// The skeleton could not be embedded.
    #[error("{}: {source}", path.display())]
    Embed {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: EmbedError,
    },
    /// The multi-component method could not run.
    #[error("{}: {source}", path.display())]
    Multipart {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: crate::multipart::MultipartError,
    },
    /// Skin weights failed.
    #[error("{}: {source}", path.display())]
    Skin {
        /// Mesh file.
        path: PathBuf,
        /// Cause.
        source: SkinError,
    },
    /// A bad hints file.
    #[error(transparent)]
    Hints(#[from] HintsError),
    /// An edits sidecar that cannot be read (its file, line and column in the message).
    #[error(transparent)]
    Edits(#[from] crate::edit::sidecar::SidecarError),
    /// A bad skeleton template.
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    /// An output could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// Output file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// An export failed for a reason other than I/O.
    #[error("{}: {message}", path.display())]
    Export {
        /// Output file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The job was cancelled (superseded by a newer save).
    #[error("cancelled")]
    Cancelled,
}

impl RigError {
    /// True for [`RigError::Cancelled`] and cancellations reported by a stage.
    pub fn is_cancelled(&self) -> bool {
        matches!(
            self,
            RigError::Cancelled
                | RigError::Discretize {
                    source: DiscretizeError::Cancelled,
                    ..
                }
                | RigError::Embed {
                    source: EmbedError::Cancelled,
                    ..
                }
        )
    }
}
