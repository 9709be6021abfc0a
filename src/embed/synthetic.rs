//! Synthetic shapes for tests and examples: unions of tapered capsules with an exact-enough signed
//! distance, their axis samples as medial spheres, and the sphere graph the paper's rules give them
//! (intersecting spheres are connected). Normalized frame.

use crate::discretize::Field;
use crate::discretize::{Sphere, SphereGraph};
use crate::geom::{NodeId, P3, V3};

/// A union of tapered capsules: `(a, b, radius at a, radius at b)`.
#[derive(Clone, Debug, Default)]
pub struct Capsules {
    /// Segments with end radii.
    pub segs: Vec<(P3, P3, f64, f64)>,
}

impl Capsules {
    fn closest(&self, p: &P3) -> (f64, V3) {
        let mut best = (f64::INFINITY, V3::zeros());
        for (a, b, ra, rb) in &self.segs {
            let ab = b - a;
            let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-300)).clamp(0.0, 1.0);
            let c = a + ab * t;
            let d = (p - c).norm() - (ra + (rb - ra) * t);
            if d < best.0 {
                let n = p - c;
                best = (
                    d,
                    if n.norm() > 0.0 {
                        n / n.norm()
                    } else {
                        V3::y()
                    },
                );
            }
        }
        best
    }

    /// A T-pose stick human, about 0.9 tall, facing +Z, its left at +X, feet at y ≈ 0.05.
    pub fn human() -> Self {
        let p = |x: f64, y: f64, z: f64| P3::new(x, y, z);
        let mut segs = vec![
            (p(0.5, 0.45, 0.5), p(0.5, 0.72, 0.5), 0.075, 0.08), // torso
            (p(0.5, 0.72, 0.5), p(0.5, 0.80, 0.5), 0.035, 0.035), // neck
            (p(0.5, 0.84, 0.5), p(0.5, 0.88, 0.5), 0.06, 0.06),  // head
        ];
        for s in [-1.0, 1.0] {
            let x = |d: f64| 0.5 + s * d;
            segs.push((p(x(0.06), 0.72, 0.5), p(x(0.24), 0.72, 0.5), 0.035, 0.03)); // upper arm
            segs.push((p(x(0.24), 0.72, 0.5), p(x(0.38), 0.72, 0.5), 0.03, 0.025)); // forearm
            segs.push((p(x(0.38), 0.72, 0.5), p(x(0.44), 0.72, 0.5), 0.025, 0.02)); // hand
            segs.push((p(x(0.07), 0.45, 0.5), p(x(0.08), 0.26, 0.5), 0.05, 0.04)); // thigh
            segs.push((p(x(0.08), 0.26, 0.5), p(x(0.08), 0.08, 0.5), 0.04, 0.03)); // shin
            segs.push((p(x(0.08), 0.08, 0.5), p(x(0.08), 0.06, 0.58), 0.03, 0.02));
            // foot
        }
        Self { segs }
    }

    /// The same shape with every point mapped by `f` (e.g. a rotation about the cube centre).
    pub fn mapped(&self, f: impl Fn(&P3) -> P3) -> Self {
        Self {
            segs: self
                .segs
                .iter()
                .map(|(a, b, ra, rb)| (f(a), f(b), *ra, *rb))
                .collect(),
        }
    }

    /// Axis samples every `spacing` (the medial spheres), and the graph of intersecting spheres.
    pub fn discretize(&self, spacing: f64) -> (SphereGraph, Vec<Sphere>) {
        let mut samples = Vec::new();
        for (a, b, ra, rb) in &self.segs {
            let n = ((b - a).norm() / spacing).ceil().max(1.0) as usize;
            for k in 0..=n {
                let t = k as f64 / n as f64;
                let c = a + (b - a) * t;
                // The sphere radius is the depth of the centre in the union.
                let r = -self.closest(&c).0;
                if r > 0.0
                    && !samples
                        .iter()
                        .any(|s: &Sphere| (s.center - c).norm() < 1e-9)
                {
                    samples.push(Sphere {
                        center: c,
                        radius: r.max(ra.min(*rb) * 0.5),
                    });
                }
            }
        }
        samples.sort_by(|a, b| b.radius.total_cmp(&a.radius));
        (graph_of(&samples), samples)
    }
}

/// The graph of intersecting spheres over `samples` (the paper's rule), vertices in their order.
pub fn graph_of(samples: &[Sphere]) -> SphereGraph {
    let mut g = SphereGraph::default();
    g.spheres = samples.to_vec();
    g.edges = vec![Vec::new(); samples.len()];
    for i in 0..samples.len() {
        for j in (i + 1)..samples.len() {
            let d = (samples[i].center - samples[j].center).norm();
            if d < samples[i].radius + samples[j].radius {
                g.edges[i].push((NodeId(j as u32), d));
                g.edges[j].push((NodeId(i as u32), d));
            }
        }
    }
    g
}

impl Field for Capsules {
    fn eval(&self, p: &P3) -> f64 {
        self.closest(p).0
    }
    fn gradient(&self, p: &P3) -> V3 {
        self.closest(p).1
    }
}
