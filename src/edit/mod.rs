//! Rig editing with local weight re-solves (Bang et al. 2015, "Interactive Rigging with Intuitive
//! Tools"; docs/algorithms.md#rig-editing).
//!
//! A [`Session`] holds a skinned rig on its prepared mesh. [`Session::apply`] is the one entry for
//! every operation ([`EditOp`]): skeleton edits (move, insert, delete, align, re-root) and per-joint
//! weight controls (influence range handle, magnitude, smoothness). After each edit the weights
//! are re-solved only on the region of [`region`], with every other weight frozen as a boundary
//! value ([`local`]); weights outside the region are left bit-identical. [`Session::global`] solves
//! the same system on the whole mesh (replay, comparison). [`sidecar`] stores the edit log.
//!
//! Weight columns are per joint, as everywhere in Geppetto (glTF convention: a bone parent → child
//! moves with the parent), and so are the three controls: they act on the weights of the joint
//! they name.

mod assemble;
pub mod cache;
pub mod compact;
mod drag;
pub mod local;
pub mod region;
mod rows;
mod session;
pub mod sidecar;
pub mod skeleton;
pub mod sources;

pub use session::{check_eps, EditOutcome, Session, REGION_EPS};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One edit. Joints are named (names are stable across inserts and deletes); positions and
/// offsets are in the **mesh frame** and units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum EditOp {
    /// Move a joint to an absolute position; its descendants stay put unless `with_descendants`.
    MoveJoint {
        /// Joint name.
        joint: String,
        /// Target position, mesh frame.
        to: [f64; 3],
        /// Translate the joint's subtree with it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        with_descendants: bool,
    },
    /// Split the bone from `child`'s parent to `child` at fraction `at` from the parent.
    InsertJoint {
        /// The joint whose incoming bone is split.
        child: String,
        /// Fraction from the parent, in (0, 1).
        at: f64,
        /// Name of the new joint.
        name: String,
    },
    /// Delete a (non-root) joint; its children are re-parented to its parent.
    DeleteJoint {
        /// Joint name.
        joint: String,
    },
    /// Put a contiguous chain of ≥ 3 joints on one bending plane (its end joints stay).
    Align {
        /// The chain, any order.
        joints: Vec<String>,
    },
    /// Make a joint the root (the weights are then solved globally: ownership flips on the path).
    Reroot {
        /// Joint name.
        joint: String,
    },
    /// Influence range: the joint's skin-weight handle, as an offset from the joint (mesh units).
    /// Heat distances are measured to segments between handles (virtual bones, §5.1).
    Handle {
        /// Joint name.
        joint: String,
        /// Offset from the joint, mesh frame and units.
        offset: [f64; 3],
    },
    /// Influence magnitude: the heat constant c of the joint's bones (default 1, > 0), §5.2.
    Magnitude {
        /// Joint name.
        joint: String,
        /// Heat constant.
        c: f64,
    },
    /// Influence smoothness: the bi-Laplacian share b of the joint's weights (a = 1 − b), §5.3.
    Smoothness {
        /// Joint name.
        joint: String,
        /// Bi-Laplacian share in [0, [`MAX_SMOOTHNESS`]].
        b: f64,
    },
}

impl EditOp {
    /// Short label for reports, e.g. `move_joint LeftForeArm`.
    pub fn label(&self) -> String {
        match self {
            Self::MoveJoint { joint, .. } => format!("move_joint {joint}"),
            Self::InsertJoint { child, name, .. } => format!("insert_joint {name} above {child}"),
            Self::DeleteJoint { joint } => format!("delete_joint {joint}"),
            Self::Align { joints } => format!("align {}", joints.join(" ")),
            Self::Reroot { joint } => format!("reroot {joint}"),
            Self::Handle { joint, .. } => format!("handle {joint}"),
            Self::Magnitude { joint, c } => format!("magnitude {joint} {c}"),
            Self::Smoothness { joint, b } => format!("smoothness {joint} {b}"),
        }
    }
}

/// Largest bi-Laplacian share: at b = 1 the heat term alone would have to pin constants, and the
/// facts sheet's terminal mapping keeps b ≤ 0.95.
pub const MAX_SMOOTHNESS: f64 = 0.95;

/// Per-joint weight controls.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Handle offset from the joint, mesh units.
    pub handle: [f64; 3],
    /// Heat constant c.
    pub magnitude: f64,
    /// Bi-Laplacian share b.
    pub smoothness: f64,
}

impl Default for Control {
    fn default() -> Self {
        Self {
            handle: [0.0; 3],
            magnitude: 1.0,
            smoothness: 0.0,
        }
    }
}

/// Why an edit failed.
#[derive(Debug, Error)]
pub enum EditError {
    /// No joint has this name.
    #[error("no joint named \"{0}\"")]
    NoJoint(String),
    /// The operation does not apply (root delete, straight chain, bad value…).
    #[error("{op} refused: {reason}")]
    Refused {
        /// Operation.
        op: &'static str,
        /// Why.
        reason: String,
    },
    /// The local system could not be factored.
    #[error("the local heat system could not be solved: {0}")]
    Solve(String),
    /// The rig has no weights to edit.
    #[error("the rig has no skin weights for this mesh ({0})")]
    NoSkin(String),
}
