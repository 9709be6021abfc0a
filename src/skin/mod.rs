//! Skin weights by heat diffusion (Baran & Popović 2007 §4; docs/algorithms.md#skin-heat-diffusion), robust to
//! multi-shell, open and flipped meshes; linear blend skinning for posing.
//!
//! Pipeline: [`bones::bones`] (segments, owners, virtual leaf segments) → [`heat::sources`]
//! (nearest visible bone, H = c/d²) → shells seeing no bone are bound rigidly (Bharaj et al. 2012)
//! → bone-owning joints no vertex takes heat from adopt their relatively nearest vertices
//! ([`heat::adopt_orphans`]) → [`laplacian::stiffness`] + [`laplacian::one_ring_areas`] → one SPD solve
//! ([`solve::solve_spd`]) of `(L_c + M·H) W = M·H·P` with one column per owning joint → clip to
//! \[0,1\], prune, renormalize → per input vertex through the weld map. See `weights.rs` (the
//! driver), `shells.rs` and `diffuse.rs`.

pub mod bones;
pub mod controls;
mod diffuse;
pub mod heat;
pub mod laplacian;
mod leaf_direction;
pub mod parts;
pub mod pose;
pub mod props;
pub mod prune;
mod rigid;
mod shells;
pub mod solve;
pub mod system;
pub mod visibility;
mod weights;

pub use diffuse::{finish_row, finish_row_into};
pub use rigid::rigid;
pub use shells::shell_vertex_lists;
pub use system::{likely_system, SystemCache};
pub use weights::{skin_with_sdf, skin_with_sdf_cached, surface_normals};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::discretize::DistanceField;
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::{RigJoint, SkinTable};

/// Tunables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SkinOptions {
    /// Heat constant c in H = c/d² (1.0).
    pub heat: f64,
    /// Weights below this are dropped before renormalizing.
    pub prune: f64,
    /// Most joints influencing one vertex (4: glTF's `JOINTS_0`; see [`prune`]).
    pub max_influences: usize,
    /// Joints weighing less than this fraction of a vertex's largest weight are dropped (soft
    /// cut, see [`prune`]).
    pub relative_prune: f64,
    /// Distances to bones divided by how squarely the surface faces them (Blender's form of the
    /// original's cone test, [`heat::oriented_distance`]). Not in the many-parts mode: a small
    /// convex piece faces every way, and its joint is the bone it surrounds.
    pub oriented: bool,
    /// Visibility near the surface from the exact distance and winding number
    /// ([`visibility`]) rather than the interpolated distance field alone.
    pub exact_visibility: bool,
    /// A heat-diffused shell that one joint carries at least this share of (area-weighted mean
    /// weight) is a rigid part bound to that joint alone ([`parts`]); above 1: never.
    pub rigid_share: f64,
    /// The character is built from many parts (the multi-component method's test, set by
    /// `pipeline::attach::skin_options` with `rigid_share` 0): every shell follows one joint
    /// except an articulated one ([`parts::articulated`]). Not a setting: a `rigid_share` of 0
    /// given by the user still binds every shell.
    #[serde(skip)]
    pub many_parts: bool,
}

impl Default for SkinOptions {
    fn default() -> Self {
        Self {
            heat: 1.0,
            prune: 1e-4,
            max_influences: 4,
            relative_prune: prune::RELATIVE_PRUNE,
            oriented: true,
            exact_visibility: false,
            rigid_share: parts::RIGID_SHARE,
            many_parts: false,
        }
    }
}

/// How one shell was bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "treatment")]
pub enum ShellBinding {
    /// Heat diffusion over the shell.
    Heat {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
    },
    /// No bone visible from the shell: bound rigidly to its nearest bone's joint.
    Rigid {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
        /// Joint the shell follows.
        joint: String,
    },
    /// Heat-diffused, but one joint carried at least [`SkinOptions::rigid_share`] of it: a rigid
    /// part (armour plate, robot segment, helmet) bound to that joint alone ([`parts`]).
    Part {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
        /// Joint the shell follows.
        joint: String,
        /// That joint's area-weighted share of the diffused weights.
        share: f64,
    },
    /// Sees no bone but touches the heat-diffused body (a prop or accessory: axe, hat, plate):
    /// bound rigidly to the joint of the body part it touches ([`props`]).
    Prop {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
        /// Joint the shell follows.
        joint: String,
        /// Smallest distance to the body, normalized units.
        gap: f64,
    },
}

/// Skin weights plus a report of how each shell was treated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skin {
    /// One list per **input** vertex: `(joint index, weight)`, weights > 0 summing to 1.
    pub weights: SkinTable,
    /// Per-shell treatment.
    pub shells: Vec<ShellBinding>,
    /// Plain-language warnings.
    pub warnings: Vec<String>,
    /// Sizes and timings of the run.
    pub stats: SkinStats,
}

/// Sizes and timings of one skinning run (milliseconds, wall clock).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SkinStats {
    /// Unknowns of the heat system (welded vertices of heat-diffused shells).
    pub unknowns: usize,
    /// Right-hand sides (joints that received heat).
    pub columns: usize,
    /// Bones, including virtual leaf segments.
    pub bones: usize,
    /// Heat sources and visibility.
    pub heat_ms: f64,
    /// Laplacian and mass assembly.
    pub assemble_ms: f64,
    /// Symbolic factorization (AMD ordering).
    pub symbolic_ms: f64,
    /// Numeric factorization.
    pub numeric_ms: f64,
    /// Triangular solves for all columns.
    pub solve_ms: f64,
    /// Clip, prune, renormalize, map to input vertices.
    pub post_ms: f64,
    /// Whole call.
    pub total_ms: f64,
}

impl SkinStats {
    /// The parts worth a column in `rig.json`'s `timings_ms` and the bench table (ms): heat
    /// sources (with the system's assembly and ordering alongside), numeric factorization, and the
    /// triangular solves.
    pub fn timings(&self) -> [(&'static str, f64); 3] {
        [
            ("skin_heat", self.heat_ms),
            ("skin_factor", self.numeric_ms),
            ("skin_solve", self.solve_ms),
        ]
    }
}

/// Why skinning failed.
#[derive(Debug, Error)]
pub enum SkinError {
    /// The skeleton has no bone that can own vertices.
    #[error("the skeleton has no bone that can own vertices")]
    NoBones,
    /// The sparse factorization failed even after regularization.
    #[error("the heat system could not be factored: {0}")]
    Factorization(String),
}

/// Compute skin weights for `joints` (**mesh frame**, as in `rig.json`) on `mesh`. `field` is the
/// distance field used for the visibility test and to extend leaf joints (normalized frame).
/// Every input vertex gets weights summing to 1; see [`Skin::shells`] for rigid fallbacks.
pub fn skin(
    mesh: &PreparedMesh,
    field: &DistanceField,
    joints: &[RigJoint],
    opts: &SkinOptions,
) -> Result<Skin, SkinError> {
    skin_cached(mesh, field, joints, opts, None)
}

/// [`skin`], reusing the heat system kept in `cache` for this mesh (hint re-runs; see
/// [`SystemCache`]). The weights are the same as [`skin`]'s, bit for bit.
pub fn skin_cached(
    mesh: &PreparedMesh,
    field: &DistanceField,
    joints: &[RigJoint],
    opts: &SkinOptions,
    cache: Option<&SystemCache>,
) -> Result<Skin, SkinError> {
    let vis = visibility::VisibilityField::new(mesh, field, opts.exact_visibility);
    skin_with_sdf_cached(mesh, &|p| vis.eval(p), joints, opts, cache)
}
