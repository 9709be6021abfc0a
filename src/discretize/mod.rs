//! Discretization (Baran & Popović 2007 §3): adaptive octree signed distance field, medial-surface
//! samples, sphere packing, sphere graph with all-pairs shortest paths. Everything here is in the
//! **normalized frame** and independent of the skeleton, its orientation and hints, so it is cached
//! by mesh content and reused by hint re-runs.
//!
//! One module per stage, each with one entry function:
//! [`field::build`] → [`medial::sample`] → [`spheres::pack`] → [`graph::connect`].
//!
//! Supporting modules: [`bvh`] (exact closest points: SAH BVH, f32 boxes, iterative traversal),
//! [`winding`] (inside/outside: closest-feature pseudo-normals for one watertight outward shell,
//! otherwise — also when that shell intersects itself, [`selfx`] — the fast generalized winding
//! number; faces buried inside the solid are dropped from
//! the distance), `octree` (the octree build on an integer lattice, parallel subtrees, exact-key
//! distance cache, sign inheritance through surface-free balls).

pub mod bvh;
pub mod field;
pub mod graph;
pub mod lazy;
pub mod medial;
mod octree;
pub mod paths;
mod pseudo;
pub mod ray;
pub mod selfx;
pub mod shells;
pub mod spheres;
pub mod winding;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use field::DistanceField;
pub use graph::SphereGraph;
pub use octree::KeyHasher;

use crate::geom::{P3, V3};
use std::time::Instant;

use crate::mesh::PreparedMesh;
use crate::progress::{Progress, Stage};
use crate::util::ms_since;

/// A sphere in the normalized frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sphere {
    /// Centre, normalized frame.
    pub center: P3,
    /// Radius (depth inside the surface), normalized units.
    pub radius: f64,
}

/// Medial-surface samples, sorted by radius, largest first.
#[derive(Clone, Debug, Default)]
pub struct MedialSamples {
    /// All samples (refinement uses all of them, not only the packed spheres).
    pub samples: Vec<Sphere>,
}

/// Tunables, in normalized units. Defaults are the original's (docs/algorithms.md#discretize).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DiscretizeOptions {
    /// Octree tolerance τ (0.003).
    pub tolerance: f64,
    /// Maximum octree depth (10).
    pub max_depth: u32,
    /// Maximum packed spheres (1000).
    pub max_spheres: usize,
}

impl DiscretizeOptions {
    /// Smallest τ accepted: below it the octree (up to 8^depth cells) and the medial grid
    /// ((side/τ)² points per leaf face) explode; a config typo must not hang the program.
    pub const MIN_TOLERANCE: f64 = 5e-4;

    /// τ as used: `tolerance` clamped to [[`Self::MIN_TOLERANCE`], 0.1] (NaN → the default).
    pub fn tol(&self) -> f64 {
        if self.tolerance.is_nan() {
            return Self::default().tolerance;
        }
        self.tolerance.clamp(Self::MIN_TOLERANCE, 0.1)
    }
}

impl Default for DiscretizeOptions {
    fn default() -> Self {
        Self {
            tolerance: 0.003,
            max_depth: 10,
            max_spheres: 1000,
        }
    }
}

/// Why discretization failed (no usable interior).
#[derive(Debug, Error)]
pub enum DiscretizeError {
    /// No medial samples: every part is thinner than the sampling tolerance, or there is no interior.
    #[error(
        "no interior found: no part of the mesh is thicker than {min_thickness:.4} of its largest \
         side (or it encloses no volume, e.g. a single sheet or a flat plane); rigging needs a \
         solid body — give thin sheets some thickness or close the surface"
    )]
    NoInterior {
        /// The smallest thickness that yields samples, relative to the largest extent.
        min_thickness: f64,
    },
    /// Cancelled between stages.
    #[error("cancelled")]
    Cancelled,
}

/// All discretization outputs, plus per-stage times.
#[derive(Clone, Debug)]
pub struct Discretization {
    /// Signed distance field (negative inside).
    pub field: DistanceField,
    /// All medial samples.
    pub medial: MedialSamples,
    /// Packed spheres connected into a graph, with all-pairs shortest paths.
    pub graph: SphereGraph,
    /// Milliseconds per stage: `field`, `medial`, `spheres`, `graph`.
    pub timings_ms: Vec<(&'static str, f64)>,
}

/// Run the four discretization stages in order, reporting each to `progress` and stopping at a
/// stage boundary if it asks to.
pub fn discretize(
    mesh: &PreparedMesh,
    opts: &DiscretizeOptions,
    progress: &dyn Progress,
) -> Result<Discretization, DiscretizeError> {
    let mut timings_ms = Vec::new();
    let begin = |stage: Stage| {
        if progress.cancelled() {
            return Err(DiscretizeError::Cancelled);
        }
        progress.enter(stage);
        Ok(Instant::now())
    };
    let t = begin(Stage::Field)?;
    let field = field::build(mesh, opts);
    timings_ms.push(("field", ms_since(t)));
    let t = begin(Stage::Medial)?;
    let medial = medial::sample(&field, opts);
    timings_ms.push(("medial", ms_since(t)));
    let t = begin(Stage::Spheres)?;
    let packed = spheres::pack(&medial, opts)?;
    timings_ms.push(("spheres", ms_since(t)));
    let t = begin(Stage::Graph)?;
    let graph = graph::connect(packed, &field);
    timings_ms.push(("graph", ms_since(t)));
    Ok(Discretization {
        field,
        medial,
        graph,
        timings_ms,
    })
}

/// A signed distance field (negative inside), normalized frame.
pub trait Field: Sync {
    /// Signed distance at `p`.
    fn eval(&self, p: &P3) -> f64;
    /// Gradient at `p`.
    fn gradient(&self, p: &P3) -> V3;
}

impl Field for DistanceField {
    fn eval(&self, p: &P3) -> f64 {
        DistanceField::eval(self, p)
    }
    fn gradient(&self, p: &P3) -> V3 {
        DistanceField::gradient(self, p)
    }
}
