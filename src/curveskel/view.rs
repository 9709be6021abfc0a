//! The primary projection direction (paper §3: the least occlusion, "approximately" the largest
//! projected area; the paper gives no procedure). Candidates: the three coordinate axes (files are
//! authored along them, so a character's front or side view is usually one of them) and the three
//! principal axes of the surface. Each is scored by its rasterized projected area times
//! (1 − the fraction of covered pixels with more than two surface layers): area alone rewards views
//! where limbs overlap (a quadruped's side view).

use rayon::prelude::*;

use super::raster::Raster;
use super::CurveError;
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;

/// Raster size (pixels on the long side) for scoring candidate directions: coarse, as only areas
/// are compared.
pub const SCORE_PIXELS: usize = 128;
/// A principal axis within this angle's cosine of a coordinate axis is the same candidate.
const SAME_DIRECTION_COS: f64 = 0.996;
/// A candidate must beat the best coordinate axis by this factor to win: coordinate views are
/// what artists model in, and a tilted view makes the rig's depth correction harder to read.
const OBLIQUE_MARGIN: f64 = 1.15;

/// An orthonormal frame (e₁, e₂, p): image x, image y, depth along the view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Image x axis.
    pub e1: V3,
    /// Image y axis ("up" in the image where possible).
    pub e2: V3,
    /// The projection direction (depth).
    pub p: V3,
}

impl Frame {
    /// The frame viewing along `p`: e₂ is +Y (else +Z) made perpendicular to p, e₁ = e₂ × p.
    pub fn along(p: V3) -> Self {
        let p = p.normalize();
        let up = if p.y.abs() < 0.9 { V3::y() } else { V3::z() };
        let e2 = (up - p * up.dot(&p)).normalize();
        let e1 = e2.cross(&p);
        Self { e1, e2, p }
    }

    /// Normalized-frame point → frame coordinates (x, y in the image, z depth).
    pub fn to_frame(&self, q: &P3) -> P3 {
        P3::new(
            q.coords.dot(&self.e1),
            q.coords.dot(&self.e2),
            q.coords.dot(&self.p),
        )
    }

    /// Frame coordinates → normalized frame.
    pub fn to_norm(&self, f: &P3) -> P3 {
        P3::from(self.e1 * f.x + self.e2 * f.y + self.p * f.z)
    }
}

/// The primary frame: `forced` if given, else the best-scoring candidate (ties keep the first).
pub fn choose(prepared: &PreparedMesh, forced: Option<[f64; 3]>) -> Result<Frame, CurveError> {
    if prepared.triangles.is_empty() {
        return Err(CurveError::Empty);
    }
    if let Some(v) = forced {
        let v = V3::new(v[0], v[1], v[2]);
        if v.norm() > 0.0 && v.iter().all(|c| c.is_finite()) {
            return Ok(Frame::along(v));
        }
    }
    let mut best: Option<(f64, Frame)> = None;
    let mut best_axis = 0.0;
    // Candidates are scored in parallel and compared in their fixed order.
    let scored: Vec<(f64, Frame)> = candidates(prepared)
        .into_par_iter()
        .map(|d| {
            let frame = Frame::along(d);
            let r = Raster::new(prepared, &frame, SCORE_PIXELS);
            (r.area() * (1.0 - r.overlap_fraction()), frame)
        })
        .collect();
    for (i, (score, frame)) in scored.into_iter().enumerate() {
        let coordinate = i < 3;
        if coordinate {
            best_axis = f64::max(best_axis, score);
        }
        let needed = if coordinate {
            0.0
        } else {
            best_axis * OBLIQUE_MARGIN
        };
        if score > needed && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, frame));
        }
    }
    best.map(|(_, f)| f).ok_or(CurveError::NoOutline)
}

/// The coordinate axes, then the principal axes of the vertices not parallel to one of them.
fn candidates(prepared: &PreparedMesh) -> Vec<V3> {
    let mut out = vec![V3::z(), V3::x(), V3::y()];
    for a in principal_axes(&prepared.positions) {
        if out.iter().all(|c| c.dot(&a).abs() < SAME_DIRECTION_COS) {
            out.push(a);
        }
    }
    out
}

/// Eigenvectors of the vertices' covariance (a unit sign convention: largest component positive).
fn principal_axes(points: &[P3]) -> Vec<V3> {
    if points.len() < 3 {
        return Vec::new();
    }
    let n = points.len() as f64;
    let mean = points.iter().fold(V3::zeros(), |a, p| a + p.coords) / n;
    let mut cov = nalgebra::Matrix3::<f64>::zeros();
    for p in points {
        let d = p.coords - mean;
        cov += d * d.transpose();
    }
    let eig = nalgebra::SymmetricEigen::new(cov / n);
    (0..3)
        .map(|i| {
            let v: V3 = eig.eigenvectors.column(i).into();
            let k = v.iamax();
            if v[k] < 0.0 {
                -v
            } else {
                v
            }
        })
        .filter(|v| v.iter().all(|c| c.is_finite()))
        .collect()
}
