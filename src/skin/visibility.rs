//! The field the heat sources' visibility test walks ([`super::heat::visible`]): the octree
//! distance field away from the surface, and near it the exact distance with the exact inside
//! test (the generalized winding number, |w| > ½, or the pseudo-normal sign on a single
//! watertight shell: [`crate::discretize::winding::Sign`]).
//!
//! Why: the octree field is trilinear in cells that can be wider than the gap between two nearby
//! surfaces (fingers, legs, an ear on a head). Interpolated across such a gap it reads "inside",
//! and a segment from a finger to its neighbour's bone passes: heat leaks to the wrong finger.
//! Deep inside or far outside the interpolated value is trustworthy and cheap, so only samples
//! within [`EXACT_BAND`] of the surface pay for an exact query (a BVH closest point, plus a
//! winding number where the mesh is not one watertight shell).

#[cfg(doc)]
use super::heat::VISIBILITY_TOLERANCE;
use crate::discretize::bvh::Bvh;
use crate::discretize::field::tree_and_sign;
use crate::discretize::winding::Sign;
use crate::discretize::DistanceField;
use crate::geom::P3;
use crate::mesh::PreparedMesh;

/// Within this distance of the surface (normalized units, as read from the interpolated field)
/// a sample is re-evaluated exactly: twice the field's octree tolerance τ = 0.003
/// (docs/algorithms.md#distance-field). A segment crossing a gap passes through the gap's
/// middle, where the true value is half the gap; the interpolated field is within τ of the truth
/// at its check points, so a gap that reads "inside or barely outside" is within this band.
pub const EXACT_BAND: f64 = 0.006;

/// The visibility field of one mesh (normalized frame). Build once per skin; evaluation is
/// thread-safe.
pub struct VisibilityField<'a> {
    field: &'a DistanceField,
    exact: Option<(Bvh, Sign)>,
}

impl<'a> VisibilityField<'a> {
    /// Over `mesh`'s welded triangles (normalized frame), refining `field` (built from them);
    /// with `exact` false, `field` alone (the former behaviour, [`super::SkinOptions`]).
    pub fn new(mesh: &PreparedMesh, field: &'a DistanceField, exact: bool) -> Self {
        let exact = exact.then(|| tree_and_sign(&mesh.positions, &mesh.triangles));
        Self { field, exact }
    }

    /// The value [`super::heat::visible`] compares with [`VISIBILITY_TOLERANCE`]: the
    /// interpolated field outside the band, the exact signed distance inside it. The tolerance
    /// keeps its slack for exact values too: thin open cards (fins, leaves of cloth) have no
    /// inside, and their vertices must still see the bone they hang from.
    pub fn eval(&self, p: &P3) -> f64 {
        let f = self.field.eval(p);
        let Some((bvh, sign)) = &self.exact else {
            return f;
        };
        if f.abs() > EXACT_BAND {
            return f;
        }
        let Some(hit) = bvh.closest(&p.coords, None) else {
            return f;
        };
        let d = hit.dist2.sqrt();
        if sign.inside(&p.coords, &hit) {
            -d
        } else {
            d
        }
    }
}
