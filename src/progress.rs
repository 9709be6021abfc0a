//! Pipeline stages, progress reporting and cancellation.

use serde::{Deserialize, Serialize};

/// The pipeline stages, in order. Stage outputs up to [`Stage::Graph`] depend only on the mesh
/// content and are cached; a hint first affects [`Stage::Embed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Read the file.
    Load,
    /// Weld, analyse, normalize.
    Prepare,
    /// Octree signed distance field.
    Field,
    /// Medial-surface samples.
    Medial,
    /// Sphere packing.
    Spheres,
    /// Sphere graph and shortest paths.
    Graph,
    /// Discrete embedding search.
    Embed,
    /// Continuous refinement.
    Refine,
    /// Skin weights.
    Skin,
    /// Writing outputs.
    Export,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 10] = [
        Stage::Load,
        Stage::Prepare,
        Stage::Field,
        Stage::Medial,
        Stage::Spheres,
        Stage::Graph,
        Stage::Embed,
        Stage::Refine,
        Stage::Skin,
        Stage::Export,
    ];

    /// Lower-case name used in `timings_ms` and the UI.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Load => "load",
            Stage::Prepare => "prepare",
            Stage::Field => "field",
            Stage::Medial => "medial",
            Stage::Spheres => "spheres",
            Stage::Graph => "graph",
            Stage::Embed => "embed",
            Stage::Refine => "refine",
            Stage::Skin => "skin",
            Stage::Export => "export",
        }
    }

    /// The first stage a joint-hint change affects: re-runs start here.
    pub const FIRST_AFFECTED_BY_HINTS: Stage = Stage::Embed;
}

/// Receives progress from a running rig and says whether to stop. Implementations must be cheap:
/// they are called from worker threads between (and sometimes inside) stages.
pub trait Progress: Sync {
    /// A stage starts.
    fn enter(&self, _stage: Stage) {}
    /// The rig starts again on a finer discretization (the first fit was low confidence,
    /// [`crate::pipeline`]'s finer retry): the stages already entered are not entered again, so
    /// a display that shows the stage shows the retry instead, which can take seconds.
    fn retry(&self) {}
    /// Fraction done of the current stage, in [0, 1] (optional).
    fn fraction(&self, _fraction: f32) {}
    /// True if the job should stop at the next check (a stage boundary).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that ignores everything and never cancels.
pub struct NoProgress;

impl Progress for NoProgress {}
