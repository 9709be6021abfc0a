//! Sphere packing (Baran & Popović 2007 §3.1; docs/algorithms.md#sphere-packing): walk the medial samples from
//! the largest radius down and keep a sample unless its centre lies strictly inside a sphere
//! already kept. A uniform grid over \[0,1\]³ lists, per cell, the kept spheres overlapping it, so
//! each containment test looks at a handful of spheres instead of all of them.

use super::{DiscretizeError, DiscretizeOptions, MedialSamples, Sphere};
use crate::geom::P3;

/// Grid cells per axis for the containment lookup.
const GRID: usize = 32;

/// Smallest thickness (relative to the largest extent) that yields medial samples: a sample must
/// be deeper than 2τ, so a part must be thicker than 4τ (in units where the largest side is 0.9).
pub fn min_thickness(opts: &DiscretizeOptions) -> f64 {
    4.0 * opts.tol() / crate::mesh::normalize::NORMALIZED_SIDE
}

/// Greedy packing of medial samples, largest first; at most `opts.max_spheres` spheres.
pub fn pack(
    medial: &MedialSamples,
    opts: &DiscretizeOptions,
) -> Result<Vec<Sphere>, DiscretizeError> {
    if medial.samples.is_empty() {
        return Err(DiscretizeError::NoInterior {
            min_thickness: min_thickness(opts),
        });
    }
    let mut grid: Vec<Vec<u32>> = vec![Vec::new(); GRID * GRID * GRID];
    let mut kept: Vec<Sphere> = Vec::new();
    for s in &medial.samples {
        if kept.len() >= opts.max_spheres.max(1) {
            break;
        }
        let c = cell_of(&s.center);
        let covered = grid[index(c)].iter().any(|&j| {
            let k = &kept[j as usize];
            (s.center - k.center).norm_squared() < k.radius * k.radius
        });
        if covered {
            continue;
        }
        insert(&mut grid, kept.len() as u32, s);
        kept.push(*s);
    }
    Ok(kept)
}

/// Grid cell of a point (clamped into the grid).
fn cell_of(p: &P3) -> [usize; 3] {
    let f = |x: f64| ((x * GRID as f64).floor().max(0.0) as usize).min(GRID - 1);
    [f(p.x), f(p.y), f(p.z)]
}

fn index(c: [usize; 3]) -> usize {
    c[0] + GRID * (c[1] + GRID * c[2])
}

/// Register sphere `id` in every grid cell its ball's bounding box touches.
fn insert(grid: &mut [Vec<u32>], id: u32, s: &Sphere) {
    let r = s.radius.max(0.0);
    let lo = cell_of(&(s.center - nalgebra::Vector3::repeat(r)));
    let hi = cell_of(&(s.center + nalgebra::Vector3::repeat(r)));
    for z in lo[2]..=hi[2] {
        for y in lo[1]..=hi[1] {
            for x in lo[0]..=hi[0] {
                grid[index([x, y, z])].push(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(samples: &[Sphere], max: usize) -> Vec<Sphere> {
        let mut kept: Vec<Sphere> = Vec::new();
        for s in samples {
            if kept.len() >= max {
                break;
            }
            if kept
                .iter()
                .all(|k| (s.center - k.center).norm_squared() >= k.radius * k.radius)
            {
                kept.push(*s);
            }
        }
        kept
    }

    #[test]
    fn grid_packing_equals_brute_force() {
        let mut rnd = crate::util::test_rng::lcg(99);
        let mut samples: Vec<Sphere> = (0..3000)
            .map(|_| Sphere {
                center: P3::new(rnd(), rnd(), rnd()),
                radius: 0.002 + 0.1 * rnd() * rnd(),
            })
            .collect();
        samples.sort_by(|a, b| b.radius.total_cmp(&a.radius));
        let medial = MedialSamples { samples };
        for max in [5, 100, 10_000] {
            let opts = DiscretizeOptions {
                max_spheres: max,
                ..Default::default()
            };
            let got = pack(&medial, &opts).unwrap_or_default();
            assert_eq!(got, brute(&medial.samples, max));
        }
    }

    #[test]
    fn no_samples_is_no_interior() {
        let err = pack(&MedialSamples::default(), &DiscretizeOptions::default());
        assert!(matches!(err, Err(DiscretizeError::NoInterior { .. })));
    }
}
