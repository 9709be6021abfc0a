//! Components and their point samples (Bharaj et al. 2012 §3–4): one component per edge-connected
//! shell of the prepared mesh (the prepare stage already welded vertices and split shells, §2),
//! area-proportional deterministic Hammersley samples, and a PCA oriented bounding box per component.

use nalgebra::{Matrix3, SymmetricEigen};

use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;

/// One rigid piece of the model.
#[derive(Clone, Debug)]
pub struct Component {
    /// Index into `PreparedMesh::shells`.
    pub shell: usize,
    /// Surface area, normalized units².
    pub area: f64,
    /// Centre of mass of the samples (the paper's initial node centre n_i), normalized frame.
    pub centre: P3,
    /// Surface samples, normalized frame.
    pub samples: Vec<P3>,
    /// Oriented bounding box of the samples.
    pub obb: Obb,
}

/// An oriented box: centre, orthonormal axes, half extents along them.
#[derive(Clone, Debug)]
pub struct Obb {
    /// Centre, normalized frame.
    pub centre: P3,
    /// Orthonormal axes.
    pub axes: [V3; 3],
    /// Half extents along `axes`.
    pub half: [f64; 3],
}

/// The base-2 radical inverse Φ₂(i): the bits of `i` mirrored behind the binary point.
pub fn radical_inverse(i: u32) -> f64 {
    f64::from(i.reverse_bits()) / 4_294_967_296.0
}

/// Every shell with non-zero area as a component, with `per_area` samples per normalized unit²
/// (at least `min_samples` each). Deterministic: the sample sequence depends only on the geometry.
pub fn components(mesh: &PreparedMesh, per_area: f64, min_samples: usize) -> Vec<Component> {
    mesh.shells
        .iter()
        .enumerate()
        .filter_map(|(s, shell)| {
            let tris: Vec<[P3; 3]> = shell
                .triangles
                .iter()
                .map(|&t| mesh.triangles[t as usize].map(|v| mesh.positions[v as usize]))
                .collect();
            let area: f64 = tris.iter().map(triangle_area).sum();
            (area > 0.0).then(|| {
                let n = ((area * per_area).ceil() as usize).max(min_samples);
                let samples = hammersley(&tris, n);
                let centre = mean(&samples);
                let obb = obb(&samples, &centre);
                Component {
                    shell: s,
                    area,
                    centre,
                    samples,
                    obb,
                }
            })
        })
        .collect()
}

fn triangle_area(t: &[P3; 3]) -> f64 {
    0.5 * (t[1] - t[0]).cross(&(t[2] - t[0])).norm()
}

fn mean(points: &[P3]) -> P3 {
    let sum = points.iter().fold(V3::zeros(), |a, p| a + p.coords);
    P3::from(sum / points.len().max(1) as f64)
}

/// `n` Hammersley points `(i/n, Φ₂(i))` on the triangles: the first coordinate picks a triangle by
/// cumulative area and, rescaled inside it, is the first barycentric coordinate; the second is the
/// other (points past the diagonal are folded back into the triangle).
fn hammersley(tris: &[[P3; 3]], n: usize) -> Vec<P3> {
    let mut cumulative = Vec::with_capacity(tris.len());
    let mut total = 0.0;
    for t in tris {
        total += triangle_area(t);
        cumulative.push(total);
    }
    (0..n)
        .map(|i| {
            let target = (i as f64 + 0.5) / n as f64 * total;
            let k = cumulative
                .partition_point(|&c| c <= target)
                .min(tris.len() - 1);
            let before = if k == 0 { 0.0 } else { cumulative[k - 1] };
            let width = (cumulative[k] - before).max(f64::MIN_POSITIVE);
            let mut u = ((target - before) / width).clamp(0.0, 1.0);
            let mut v = radical_inverse(i as u32);
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            let t = &tris[k];
            t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v
        })
        .collect()
}

/// PCA box of `points` about `centre` (the usual choice; the paper does not say how, §4).
fn obb(points: &[P3], centre: &P3) -> Obb {
    let mut cov = Matrix3::zeros();
    for p in points {
        let d = p - centre;
        cov += d * d.transpose();
    }
    let eig = SymmetricEigen::new(cov);
    let mut axes = [V3::x(), V3::y(), V3::z()];
    for (k, axis) in axes.iter_mut().enumerate() {
        let c = eig.eigenvectors.column(k).into_owned();
        if c.norm() > 0.5 {
            *axis = c.normalize();
        }
    }
    // Re-orthonormalize (degenerate eigenvalues may return a non-orthogonal basis).
    axes[1] = (axes[1] - axes[0] * axes[0].dot(&axes[1])).normalize();
    axes[2] = axes[0].cross(&axes[1]);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in points {
        for k in 0..3 {
            let x = (p - centre).dot(&axes[k]);
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    let mid = (0..3).fold(centre.coords, |c, k| c + axes[k] * 0.5 * (lo[k] + hi[k]));
    Obb {
        centre: P3::from(mid),
        axes,
        half: [0, 1, 2].map(|k| 0.5 * (hi[k] - lo[k]).max(0.0)),
    }
}

impl Obb {
    /// The axis-aligned box of this box grown by `margin`: `(min, max)`.
    pub fn aabb(&self, margin: f64) -> (P3, P3) {
        let r = V3::from_fn(|i, _| {
            (0..3)
                .map(|k| self.axes[k][i].abs() * (self.half[k] + margin))
                .sum()
        });
        (self.centre - r, self.centre + r)
    }

    /// Separating-axis test (15 axes) of the two boxes, each grown by `margin`.
    pub fn intersects(&self, other: &Obb, margin: f64) -> bool {
        let d = other.centre - self.centre;
        let mut axes: Vec<V3> = self.axes.iter().chain(&other.axes).copied().collect();
        for a in &self.axes {
            for b in &other.axes {
                let c = a.cross(b);
                if c.norm() > 1e-9 {
                    axes.push(c.normalize());
                }
            }
        }
        axes.iter().all(|l| {
            let r = |o: &Obb| -> f64 {
                (0..3)
                    .map(|k| (o.half[k] + margin) * o.axes[k].dot(l).abs())
                    .sum()
            };
            d.dot(l).abs() <= r(self) + r(other)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radical_inverse_mirrors_bits() {
        assert_eq!(radical_inverse(0), 0.0);
        assert_eq!(radical_inverse(1), 0.5);
        assert_eq!(radical_inverse(2), 0.25);
        assert_eq!(radical_inverse(3), 0.75);
    }

    #[test]
    fn samples_lie_on_the_triangle_and_spread() {
        let t = [P3::origin(), P3::new(1.0, 0.0, 0.0), P3::new(0.0, 1.0, 0.0)];
        let s = hammersley(&[t], 200);
        assert!(s
            .iter()
            .all(|p| p.x >= -1e-12 && p.y >= -1e-12 && p.x + p.y <= 1.0 + 1e-12));
        let c = mean(&s);
        // The centroid of a uniform triangle sample is the triangle's centroid.
        assert!(
            (c - P3::new(1.0 / 3.0, 1.0 / 3.0, 0.0)).norm() < 0.03,
            "{c}"
        );
    }

    #[test]
    fn separated_boxes_do_not_intersect_until_grown() {
        let b = |x: f64| Obb {
            centre: P3::new(x, 0.0, 0.0),
            axes: [V3::x(), V3::y(), V3::z()],
            half: [0.5; 3],
        };
        assert!(!b(0.0).intersects(&b(1.2), 0.0));
        assert!(b(0.0).intersects(&b(1.2), 0.11));
        assert!(b(0.0).intersects(&b(0.9), 0.0));
    }
}
