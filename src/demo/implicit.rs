//! Implicit shapes for the demo characters: capsules with tapering radius and ellipsoids, joined
//! by a polynomial smooth minimum. Values are approximate signed distances (negative inside).

use crate::geom::{Aabb, P3, V3};

/// One primitive solid.
#[derive(Clone, Copy, Debug)]
pub enum Primitive {
    /// Segment `a`–`b` swept by a sphere whose radius goes linearly from `ra` to `rb`.
    Capsule {
        /// First end.
        a: P3,
        /// Second end.
        b: P3,
        /// Radius at `a`.
        ra: f64,
        /// Radius at `b`.
        rb: f64,
    },
    /// Axis-aligned ellipsoid.
    Ellipsoid {
        /// Centre.
        c: P3,
        /// Semi-axes.
        r: V3,
    },
}

impl Primitive {
    /// Approximate signed distance (exact for equal-radius capsules and spheres).
    pub fn eval(&self, p: &P3) -> f64 {
        match *self {
            Primitive::Capsule { a, b, ra, rb } => {
                let ba = b - a;
                let len2 = ba.norm_squared();
                let t = if len2 > 0.0 {
                    ((p - a).dot(&ba) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (p - (a + ba * t)).norm() - (ra + (rb - ra) * t)
            }
            Primitive::Ellipsoid { c, r } => {
                // Inigo Quilez's first-order ellipsoid distance: k0 (k0 − 1) / k1.
                let q = p - c;
                let k0 = q.component_div(&r).norm();
                let k1 = q.component_div(&r.component_mul(&r)).norm();
                if k1 > 0.0 {
                    k0 * (k0 - 1.0) / k1
                } else {
                    -r.min()
                }
            }
        }
    }

    /// A box containing the primitive.
    pub fn bounds(&self) -> Aabb {
        match *self {
            Primitive::Capsule { a, b, ra, rb } => {
                let r = ra.max(rb);
                let pad = V3::new(r, r, r);
                Aabb {
                    min: a.inf(&b) - pad,
                    max: a.sup(&b) + pad,
                }
            }
            Primitive::Ellipsoid { c, r } => Aabb {
                min: c - r,
                max: c + r,
            },
        }
    }
}

/// Polynomial smooth minimum with blend width `k` (Quilez): equals `min` when `|a − b| ≥ k`.
pub fn smooth_min(a: f64, b: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

/// A smooth union of primitives.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// The primitives, blended in order.
    pub parts: Vec<Primitive>,
    /// Blend width (same units as the primitives).
    pub blend: f64,
}

impl Shape {
    /// The field at `p` (negative inside).
    pub fn eval(&self, p: &P3) -> f64 {
        self.parts
            .iter()
            .map(|q| q.eval(p))
            .fold(f64::INFINITY, |acc, d| smooth_min(acc, d, self.blend))
    }

    /// A box containing the surface (primitive bounds grown by the blend width).
    pub fn bounds(&self) -> Aabb {
        let mut b = Aabb::empty();
        for q in &self.parts {
            let qb = q.bounds();
            b.grow(&qb.min);
            b.grow(&qb.max);
        }
        let pad = V3::new(self.blend, self.blend, self.blend);
        Aabb {
            min: b.min - pad,
            max: b.max + pad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_and_distances() {
        let cap = Primitive::Capsule {
            a: P3::origin(),
            b: P3::new(0.0, 1.0, 0.0),
            ra: 0.2,
            rb: 0.2,
        };
        assert!((cap.eval(&P3::new(0.5, 0.5, 0.0)) - 0.3).abs() < 1e-12);
        assert!(cap.eval(&P3::new(0.0, 0.5, 0.0)) < 0.0);
        let e = Primitive::Ellipsoid {
            c: P3::origin(),
            r: V3::new(1.0, 2.0, 3.0),
        };
        assert!(e.eval(&P3::new(0.0, 1.9, 0.0)) < 0.0);
        assert!(e.eval(&P3::new(0.0, 0.0, 3.1)) > 0.0);
        assert_eq!(smooth_min(0.0, 5.0, 1.0), 0.0);
        assert!(smooth_min(0.0, 0.0, 1.0) < 0.0);
    }
}
