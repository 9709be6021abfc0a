//! The map between the mesh frame and the normalized frame.

use serde::{Deserialize, Serialize};

use crate::geom::{Aabb, P3, V3};

/// Largest bounding-box side in the normalized frame (Pinocchio `normalizeBoundingBox`).
pub const NORMALIZED_SIDE: f64 = 0.9;

/// `p_normalized = scale · p_mesh + offset`: the mesh's largest bounding-box side becomes
/// [`NORMALIZED_SIDE`] and the box is centred at (0.5, 0.5, 0.5). Uniform scale, no rotation, so
/// relative tolerances mean the same on every axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Normalization {
    /// Normalized units per mesh unit.
    pub scale: f64,
    /// Translation applied after scaling.
    pub offset: V3,
}

impl Normalization {
    /// The normalization of a (non-empty, non-degenerate) bounding box in the mesh frame.
    pub fn from_aabb(b: &Aabb) -> Self {
        let side = b.max_extent();
        let scale = if side > 0.0 && side.is_finite() {
            NORMALIZED_SIDE / side
        } else {
            1.0
        };
        let offset = V3::new(0.5, 0.5, 0.5) - b.center().coords * scale;
        Self { scale, offset }
    }

    /// Mesh frame → normalized frame.
    pub fn to_normalized(&self, p_mesh: &P3) -> P3 {
        P3::from(p_mesh.coords * self.scale + self.offset)
    }

    /// Normalized frame → mesh frame.
    pub fn to_mesh(&self, p_norm: &P3) -> P3 {
        P3::from((p_norm.coords - self.offset) / self.scale)
    }

    /// A length in mesh units → normalized units.
    pub fn len_to_normalized(&self, len_mesh: f64) -> f64 {
        len_mesh * self.scale
    }

    /// A length in normalized units → mesh units.
    pub fn len_to_mesh(&self, len_norm: f64) -> f64 {
        len_norm / self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_unit_cube() {
        let b = Aabb {
            min: P3::new(-10.0, 0.0, 5.0),
            max: P3::new(10.0, 40.0, 6.0),
        };
        let n = Normalization::from_aabb(&b);
        let lo = n.to_normalized(&b.min);
        let hi = n.to_normalized(&b.max);
        assert!((hi.y - lo.y - 0.9).abs() < 1e-12);
        assert!(((lo.x + hi.x) / 2.0 - 0.5).abs() < 1e-12);
        let p = P3::new(3.0, 7.0, 5.5);
        assert!((n.to_mesh(&n.to_normalized(&p)) - p).norm() < 1e-12);
    }
}
