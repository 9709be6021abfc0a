//! Adaptive octree signed distance field (pinocchio-facts §1), exact distances from a BVH, sign from
//! the generalized winding number (Jacobson et al. 2013) so open, multi-shell and self-intersecting
//! meshes get a well-defined interior.
//! OWNER: discretize helper. (Stub until implemented.)

use super::DiscretizeOptions;
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;

/// Signed distance to the surface in the **normalized frame**: negative inside, positive outside,
/// trilinear inside each octree leaf.
#[derive(Clone, Debug, Default)]
pub struct DistanceField {}

impl DistanceField {
    /// Signed distance at `p` (normalized frame). Points outside [0,1]³ are extrapolated safely.
    pub fn eval(&self, _p: &P3) -> f64 {
        1.0
    }

    /// Gradient of the interpolated field at `p`.
    pub fn gradient(&self, _p: &P3) -> V3 {
        V3::zeros()
    }

    /// True if `p` is inside (field < 0).
    pub fn inside(&self, p: &P3) -> bool {
        self.eval(p) < 0.0
    }
}

/// Build the octree field for a prepared mesh.
pub fn build(_mesh: &PreparedMesh, _opts: &DiscretizeOptions) -> DistanceField {
    DistanceField::default()
}
