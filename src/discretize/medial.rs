//! Medial-surface sampling (Baran & Popović 2007 §3.1; docs/algorithms.md#medial-samples).
//!
//! The medial surface is where the field's gradient is discontinuous. A leaf is a candidate when
//! the gradients at its 8 corners (`centre ± half-diagonal`) disagree: some pairwise dot ≤ 0. On
//! candidate leaves a grid of spacing τ is laid on the three faces through the leaf's lower
//! corner; a grid point deeper than 2τ whose 8 one-octant-away gradients disagree the same way
//! becomes a sample sphere (centre, depth).
//!
//! Threshold: the code's pairwise dot ≤ 0 (angle ≥ 90°), not the paper's 120°, because the
//! original's Γ and sphere counts were tuned with it (docs/algorithms.md#medial-samples).

use rayon::prelude::*;

use super::field::LeafHints;
use super::{DiscretizeOptions, DistanceField, MedialSamples, Sphere};
use crate::geom::{P3, V3};

/// Offset of the 8 gradient probes around a face grid point, relative to τ (the original's
/// 0.001·τ = 3·10⁻⁶ units).
const PROBE: f64 = 1e-3;

/// True when the normalized field gradients at `c + r·(±1, ±1, ±1)` disagree: some pairwise dot
/// is ≤ 0 (zero gradients carry no direction and are ignored). Stops at the first such pair:
/// on the medial sheets, where the octree is finest, most probes disagree early, and whether
/// *some* pair disagrees does not depend on the order the pairs are tested in.
pub fn gradients_disagree(field: &DistanceField, c: &P3, r: f64) -> bool {
    gradients_disagree_hinted(field, c, r, &mut LeafHints::default())
}

/// [`gradients_disagree`] with leaves remembered across calls. Most tested points lie off the
/// medial surface, where all 8 gradients agree: a bound proves that from one gradient per leaf
/// the probes meet (`DistanceField::probes_surely_agree`), so only the rest are evaluated.
fn gradients_disagree_hinted<'a>(
    field: &'a DistanceField,
    c: &P3,
    r: f64,
    hints: &mut LeafHints<'a>,
) -> bool {
    if field.probes_surely_agree(c, r, hints) {
        return false;
    }
    any_opposed(c, r, |p| {
        field.gradient_hinted(p, hints).try_normalize(1e-12)
    })
}

/// Whether two of the unit gradients `unit` gives at the 8 corners `c + r·(±1, ±1, ±1)` point
/// apart (dot ≤ 0), stopping at the first such pair; a corner without a gradient is skipped.
fn any_opposed(c: &P3, r: f64, mut unit: impl FnMut(&P3) -> Option<V3>) -> bool {
    let mut g = [V3::zeros(); 8];
    let mut n = 0;
    for k in 0..8 {
        let o = V3::new(
            if k & 1 == 0 { -r } else { r },
            if k & 2 == 0 { -r } else { r },
            if k & 4 == 0 { -r } else { r },
        );
        if let Some(v) = unit(&(c + o)) {
            if g[..n].iter().any(|u| u.dot(&v) <= 0.0) {
                return true;
            }
            g[n] = v;
            n += 1;
        }
    }
    false
}

/// Sample the medial surface of the field's interior; sorted by radius, largest first (ties by
/// position, so the order is deterministic). Leaves whose corners are all shallower than 2τ are
/// skipped up front: trilinear values never go below the smallest corner, so no face point of
/// such a leaf could pass the depth test (same output as the original, less work).
pub fn sample(field: &DistanceField, opts: &DiscretizeOptions) -> MedialSamples {
    let tol = opts.tol();
    let cells: Vec<(P3, f64, f64, f64)> = field
        .leaf_cells_with_range()
        .filter(|c| c.2 < -2.0 * tol)
        .collect();
    let spreads = field.spreads();
    let fresh = LeafHints::with_spreads(&spreads);
    let mut samples: Vec<Sphere> = cells
        .par_iter()
        .with_min_len(64)
        .map_init(
            || Corners::new(fresh, CORNER_SLOTS_LOG2),
            |corners, &(lo, size, min, max)| {
                let deep = surely_deep(min, max, tol);
                leaf_samples(field, corners, &lo, size, tol, deep)
            },
        )
        .flatten_iter()
        .collect();
    if samples.len() < FALLBACK_BELOW {
        // A sphere's medial axis is a single point and an axis-aligned box's medial sheets can fall
        // between the τ grid: the gradient test then finds (almost) nothing although the shape is
        // thick. Local depth maxima of the leaf centres are medial points by definition, so they
        // stand in rather than failing with a misleading "no interior".
        samples.extend(depth_maxima(field, &cells, tol));
    }
    samples.sort_by(|a, b| {
        b.radius
            .total_cmp(&a.radius)
            .then(a.center.x.total_cmp(&b.center.x))
            .then(a.center.y.total_cmp(&b.center.y))
            .then(a.center.z.total_cmp(&b.center.z))
    });
    MedialSamples { samples }
}

/// Below this many gradient-test samples, local depth maxima are added (blob-like shapes).
const FALLBACK_BELOW: usize = 4;

/// Leaf lower corners deeper than 2τ whose depth is not exceeded one leaf away along any axis.
/// Corners lie on the dyadic lattice, so a centred sphere's centre or a box's mid-planes are hit
/// exactly (leaf centres never are).
fn depth_maxima(field: &DistanceField, cells: &[(P3, f64, f64, f64)], tol: f64) -> Vec<Sphere> {
    cells
        .iter()
        .filter_map(|(lo, size, _, _)| {
            let depth = -field.eval(lo);
            let step = size.max(tol);
            let is_max = (0..3).all(|axis| {
                let mut d = V3::zeros();
                d[axis] = step;
                -field.eval(&(lo + d)) <= depth && -field.eval(&(lo - d)) <= depth
            });
            (depth > 2.0 * tol && is_max).then_some(Sphere {
                center: *lo,
                radius: depth,
            })
        })
        .collect()
}

/// Unit gradients at leaf corners, remembered by lattice point. The centre test of a leaf probes
/// its 8 corners (`centre ± half` is exact: corners are dyadic), and a corner is shared by up to
/// 8 tested leaves of one size (more across sizes): a gradient depends on the point alone (the
/// half-open leaf lookup is deterministic), so a remembered one is the one a new lookup would
/// give, bit for bit, whatever rayon's split. One per rayon task ([`sample`]'s `map_init`).
/// Direct-mapped (a slot per hashed key, the last corner stored there wins): leaves come in
/// octree order, so the corners still to be shared are recent ones, and a probe costs one
/// multiply and one compare instead of a hash map's lookup and insertion (a collision only
/// costs a gradient computed again); its memory is fixed.
struct Corners<'a> {
    /// Per slot: the key of the corner stored there ([`EMPTY`] for none) and its unit gradient.
    slots: Vec<(u64, Option<V3>)>,
    /// 64 − log2 of the slot count: a key's slot is the top bits of its Fibonacci hash.
    shift: u32,
    hints: LeafHints<'a>,
    /// Gradients computed (lookups the slots did not answer).
    computed: usize,
}

/// Lattice points are multiples of 2^−19 at the deepest octree (field depth cap 19); scaled by
/// 2^20 each coordinate of \[0,1\] is an integer of at most 21 bits, and three pack in a `u64`.
const CORNER_SCALE: f64 = (1u64 << 20) as f64;

/// log2 of the slots a task keeps (4096, 160 KB): a Morton-ordered run of leaves shares its
/// corners within a few hundred leaves.
const CORNER_SLOTS_LOG2: u32 = 12;

/// A slot holding no corner: keys use 63 bits.
const EMPTY: u64 = u64::MAX;

impl<'a> Corners<'a> {
    fn new(hints: LeafHints<'a>, slots_log2: u32) -> Self {
        let log2 = slots_log2.clamp(1, 30);
        Self {
            slots: vec![(EMPTY, None); 1 << log2],
            shift: 64 - log2,
            hints,
            computed: 0,
        }
    }

    /// The normalized gradient at `p` (`None` where it is zero), as the unmemoised test computes it.
    fn unit_gradient(&mut self, field: &'a DistanceField, p: &P3) -> Option<V3> {
        let Some(key) = corner_key(p) else {
            return field
                .gradient_hinted(p, &mut self.hints)
                .try_normalize(1e-12);
        };
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        if self.slots[slot].0 == key {
            return self.slots[slot].1;
        }
        let v = field
            .gradient_hinted(p, &mut self.hints)
            .try_normalize(1e-12);
        self.computed += 1;
        self.slots[slot] = (key, v);
        v
    }

    /// [`gradients_disagree`] at the 8 corners `c + r·(±1, ±1, ±1)` of a leaf: the same early-exit
    /// test on the same unit gradients (the bound of `probes_surely_agree` only ever skips it
    /// where it answers `false`), with each corner's gradient remembered by the task.
    fn disagree(&mut self, field: &'a DistanceField, c: &P3, r: f64) -> bool {
        any_opposed(c, r, |p| self.unit_gradient(field, p))
    }
}

/// `p`'s lattice key, packed as the octree's cache packs them ([`super::octree::pack`]), if every
/// coordinate is a multiple of 2^−20 in \[0,1\] (else the point is not memoised).
fn corner_key(p: &P3) -> Option<u64> {
    let mut k = [0u32; 3];
    for a in 0..3 {
        let s = p[a] * CORNER_SCALE;
        // `as` saturates and truncates: the round trip is exact only for integers in range.
        let i = s as u64;
        if i > 1 << 20 || i as f64 != s {
            return None;
        }
        k[a] = i as u32;
    }
    Some(super::octree::pack(k))
}

/// True when every point of a leaf whose corner values span `min ..= max` is deeper than 2τ, as
/// `eval` computes it: a trilinear value is a convex blend of the corners, so at most `max`, and
/// its three nested interpolations round by ~10⁻¹⁵ of the largest |corner|, far below the slack.
fn surely_deep(min: f64, max: f64, tol: f64) -> bool {
    max < -2.0 * tol - DEEP_SLACK * min.abs().max(max.abs())
}

/// Relative slack of [`surely_deep`] for the interpolation's rounding.
const DEEP_SLACK: f64 = 1e-9;

/// Samples on the three lower faces of one leaf (empty unless the leaf straddles the medial
/// surface). `deep`: the leaf is [`surely_deep`], so its face points (all in it) pass the depth
/// test without an evaluation, which is then needed only for the samples kept.
/// `corners` is the task's corner memo; its leaf hints serve the face points too (leaves come in
/// octree order, so the next leaf's neighbours are often among the last ones met).
fn leaf_samples<'a>(
    field: &'a DistanceField,
    corners: &mut Corners<'a>,
    lo: &P3,
    size: f64,
    tol: f64,
    deep: bool,
) -> Vec<Sphere> {
    let half = 0.5 * size;
    let centre = lo + V3::repeat(half);
    // The face points and their probes meet this leaf and its neighbours across the three faces.
    if !corners.disagree(field, &centre, half) {
        return Vec::new();
    }
    let n = ((size / tol).ceil() as usize).max(1);
    let mut out = Vec::new();
    // Faces x = lo, y = lo, z = lo; shared edges are visited once (face y skips i = 0, face z
    // skips i = 0 and j = 0).
    for face in 0..3 {
        for a in 0..n {
            for b in 0..n {
                let (i, j, k) = match face {
                    0 => (0, a, b),
                    1 => (a, 0, b),
                    _ => (a, b, 0),
                };
                if (face >= 1 && i == 0) || (face == 2 && j == 0) {
                    continue;
                }
                let p = lo + V3::new(i as f64, j as f64, k as f64) * tol;
                if p.x >= lo.x + size || p.y >= lo.y + size || p.z >= lo.z + size {
                    continue;
                }
                // `p` lies in this leaf (the test above), so a deep leaf settles the depth test.
                let depth = (!deep).then(|| -field.eval_hinted(&p, &mut corners.hints));
                if depth.is_some_and(|d| d <= 2.0 * tol)
                    || !gradients_disagree_hinted(field, &p, PROBE * tol, &mut corners.hints)
                {
                    continue;
                }
                out.push(Sphere {
                    center: p,
                    radius: depth.unwrap_or_else(|| -field.eval_hinted(&p, &mut corners.hints)),
                });
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "medial_tests.rs"]
mod tests;
