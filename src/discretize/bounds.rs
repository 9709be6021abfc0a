//! Interval bounds on the signed distance at the 27 lattice points of an octree cell, from the
//! values already known (8 corners, then the centre), so the split test can skip lattice points
//! whose answer is certain (docs/algorithms.md#distance-field). Three facts, each exact for a
//! signed distance whose sign is consistent (one watertight outward shell, pseudo-normal sign):
//!
//! * **Lipschitz**: `|v(x) − v(c)| ≤ |x − c|` for every known point `c`.
//! * **Closest points**: the surface point `q_c` found for `c` bounds the distance anywhere:
//!   `|v(x)| ≤ |x − q_c|`.
//! * **Surface-free balls**: no surface lies within `|v(c)|` of `c`, so when two known points of
//!   the same sign have balls whose union contains `x`, `|v(x)|` is at least the distance from
//!   `x` to the outside of that union, with the same sign. For `x` midway between two points at
//!   depth `D` and `s` away, that is `√(D² − s²)`: far tighter than the Lipschitz `D − s`.
//!
//! The last two make cells much larger than τ decidable where the field is smooth.

use std::sync::LazyLock;

use crate::geom::V3;

/// Absolute margin (normalized units) kept on the closest-point and ball bounds: far above the
/// rounding of the distances and of the bounds' own arithmetic (~10⁻¹⁶ at unit scale).
const MARGIN: f64 = 1e-12;

/// Distances between the points of the 3×3×3 lattice (indices i + 3j + 9k), in half cell sides:
/// one table instead of a square root per point and known value in every tested cell.
static LATTICE_DIST: LazyLock<[[f64; 27]; 27]> = LazyLock::new(|| {
    std::array::from_fn(|a| {
        std::array::from_fn(|b| {
            let d2 = (a % 3).abs_diff(b % 3).pow(2)
                + (a / 3 % 3).abs_diff(b / 3 % 3).pow(2)
                + (a / 9).abs_diff(b / 9).pow(2);
            (d2 as f64).sqrt()
        })
    })
});

/// True for the 8 corners of the 3×3×3 lattice (no coordinate is a midpoint).
#[inline]
pub fn is_corner(idx: usize) -> bool {
    idx % 3 != 1 && idx / 3 % 3 != 1 && idx / 9 != 1
}

/// Lattice index of corner `m` (bit 0 = +x, bit 1 = +y, bit 2 = +z).
#[inline]
pub fn corner_index(m: usize) -> usize {
    2 * (m & 1) + 6 * (m >> 1 & 1) + 18 * (m >> 2 & 1)
}

/// Corner number (bit 0 = +x, …) of lattice corner `idx` (every coordinate 0 or 2).
#[inline]
fn corner_of(idx: usize) -> usize {
    (idx % 3) / 2 + (idx / 3 % 3) / 2 * 2 + (idx / 9) / 2 * 4
}

/// Relative slack on τ in [`Bounds::settled`], far above the rounding of the exact distances.
const SETTLED_SLACK: f64 = 1e-9;

/// Lower and upper bounds at the 27 lattice points of one cell. The Lipschitz bounds are set
/// for every point at once (a vectorized loop); the closest-point and ball bounds cost square
/// roots, so a point gets them only when the Lipschitz interval does not settle it.
pub struct Bounds {
    lower: [f64; 27],
    upper: [f64; 27],
    /// Points that have the closest-point and ball bounds of the corners (and of the centre,
    /// once known).
    refined: [bool; 27],
    v: [f64; 8],
    q: [V3; 8],
    center_q: Option<V3>,
    pos: [V3; 27],
    half: f64,
}

impl Bounds {
    /// Bounds from the 8 corners: values `v`, closest surface points `q`, positions `pos` of
    /// all 27 lattice points (normalized frame); `half` = half the cell side.
    pub fn from_corners(v: &[f64; 8], q: &[V3; 8], pos: &[V3; 27], half: f64) -> Self {
        let mut b = Bounds {
            lower: [f64::NEG_INFINITY; 27],
            upper: [f64::INFINITY; 27],
            refined: [false; 27],
            v: *v,
            q: *q,
            center_q: None,
            pos: *pos,
            half,
        };
        for (m, &vm) in v.iter().enumerate() {
            b.lipschitz(corner_index(m), vm, half);
        }
        b
    }

    /// Tighten with the centre's value `v` and closest point `q`.
    pub fn add_center(&mut self, v: f64, q: &V3) {
        self.lipschitz(13, v, self.half);
        self.center_q = Some(*q);
        for idx in 0..27 {
            if self.refined[idx] && idx != 13 {
                self.closest(idx, q);
            }
        }
    }

    /// Give point `idx` its closest-point and ball bounds (once).
    fn refine(&mut self, idx: usize) {
        if self.refined[idx] {
            return;
        }
        self.refined[idx] = true;
        self.corner_facts(idx);
        if let Some(q) = self.center_q.filter(|_| idx != 13) {
            self.closest(idx, &q);
        }
    }

    fn lipschitz(&mut self, at: usize, v: f64, half: f64) {
        let row = &LATTICE_DIST[at];
        for ((lo, up), unit) in self.lower.iter_mut().zip(&mut self.upper).zip(row) {
            let d = unit * half;
            // Plain comparisons (no NaN here) so the loop vectorizes.
            let (l, u) = (v - d, v + d);
            *lo = if l > *lo { l } else { *lo };
            *up = if u < *up { u } else { *up };
        }
    }

    /// `|v(x)| ≤ |x − q|` for a surface point `q`.
    fn closest(&mut self, idx: usize, q: &V3) {
        let m = (self.pos[idx] - q).norm() + MARGIN;
        self.upper[idx] = self.upper[idx].min(m);
        self.lower[idx] = self.lower[idx].max(-m);
    }

    /// The corners of the edge, face or cell that `idx` is the middle of: their closest points,
    /// and the ball pairs mirrored through `idx`.
    fn corner_facts(&mut self, idx: usize) {
        let (v, q, half) = (self.v, self.q, self.half);
        let c = [idx % 3, idx / 3 % 3, idx / 9];
        let (mut axes, mut n) = ([0usize; 3], 0);
        for a in (0..3).filter(|&a| c[a] == 1) {
            axes[n] = a;
            n += 1;
        }
        let free = &axes[..n];
        for pick in 0..(1usize << n) {
            let mut cc = c;
            for (bit, &axis) in free.iter().enumerate() {
                cc[axis] = 2 * ((pick >> bit) & 1);
            }
            let a = corner_of(cc[0] + 3 * cc[1] + 9 * cc[2]);
            self.closest(idx, &q[a]);
            // Each pair once: the mirror has the first free axis flipped.
            if pick & 1 == 1 {
                continue;
            }
            let mirror = pick ^ ((1usize << n) - 1);
            let mut mc = c;
            for (bit, &axis) in free.iter().enumerate() {
                mc[axis] = 2 * ((mirror >> bit) & 1);
            }
            let b = corner_of(mc[0] + 3 * mc[1] + 9 * mc[2]);
            let (va, vb) = (v[a], v[b]);
            if (va < 0.0) != (vb < 0.0) || va == 0.0 || vb == 0.0 {
                continue;
            }
            let s = LATTICE_DIST[idx][corner_index(a)] * half;
            let depth = union_depth(s, va.abs(), vb.abs()) - MARGIN;
            if depth <= 0.0 {
                continue;
            }
            if va < 0.0 {
                self.upper[idx] = self.upper[idx].min(-depth);
            } else {
                self.lower[idx] = self.lower[idx].max(depth);
            }
        }
    }

    /// Lattice points (index i + 3j + 9k) whose split test is decided without evaluating them:
    /// when the interval lies within τ of the trilinear interpolant `at`, `|v(x) − interp| ≤ τ`
    /// is certain and the exact value could not split the cell. Corners, and the centre unless
    /// `test_center`, are known values: they count as not settled (the caller reads them, never
    /// evaluates them).
    pub fn settled(&mut self, at: &[f64; 27], tol: f64, test_center: bool) -> [bool; 27] {
        std::array::from_fn(|idx| {
            !is_corner(idx) && (idx != 13 || test_center) && self.settles(idx, at[idx], tol)
        })
    }

    /// True if every point but the corners, centre included, is settled (stops at the first
    /// that is not).
    pub fn all_settled(&mut self, at: &[f64; 27], tol: f64) -> bool {
        (0..27).all(|idx| is_corner(idx) || self.settles(idx, at[idx], tol))
    }

    /// The split test at `idx` is certain to pass: the interval lies within τ of `at`.
    fn settles(&mut self, idx: usize, at: f64, tol: f64) -> bool {
        let limit = tol * (1.0 - SETTLED_SLACK);
        let ok = |b: &Self| b.upper[idx] - at <= limit && at - b.lower[idx] <= limit;
        if ok(self) {
            return true;
        }
        self.refine(idx);
        ok(self)
    }
}

/// Distance from the midpoint `x` of two ball centres `2s` apart, radii `ra` and `rb`, to the
/// outside of the union of the two open balls (0 if `x` is in neither). The nearest outside
/// point is on sphere A's part outside B (then it is the radial projection of `x`, if that lies
/// outside B), on B's part outside A likewise, or on the circle where the spheres meet.
fn union_depth(s: f64, ra: f64, rb: f64) -> f64 {
    let l = 2.0 * s;
    if (ra <= s && rb <= s) || s <= 0.0 {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    // x is on the axis: A's radial projection of x is the axis point ra from A (towards B).
    if (l - ra).abs() >= rb {
        best = best.min((ra - s).abs());
    }
    if (l - rb).abs() >= ra {
        best = best.min((rb - s).abs());
    }
    if (ra - rb).abs() < l && l < ra + rb {
        // The circle's plane is `a` from A along the axis; its radius ρ.
        let a = (l * l + ra * ra - rb * rb) / (2.0 * l);
        let rho2 = ra * ra - a * a;
        if rho2 >= 0.0 {
            best = best.min(((s - a) * (s - a) + rho2).sqrt());
        }
    }
    if best.is_finite() {
        best
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the smallest distance from the midpoint to sampled points of the two
    /// spheres that lie outside the other ball.
    fn brute(s: f64, ra: f64, rb: f64) -> f64 {
        let (ca, cb) = (V3::new(-s, 0.0, 0.0), V3::new(s, 0.0, 0.0));
        let mut best = f64::INFINITY;
        let n = 2000;
        for (c, r, other, ro) in [(ca, ra, cb, rb), (cb, rb, ca, ra)] {
            for i in 0..=n {
                let t = std::f64::consts::PI * i as f64 / n as f64;
                let p = c + V3::new(t.cos(), t.sin(), 0.0) * r;
                if (p - other).norm() >= ro {
                    best = best.min(p.norm());
                }
            }
        }
        best
    }

    #[test]
    fn union_depth_matches_sampled_spheres() {
        for &(s, ra, rb) in &[
            (0.1, 0.5, 0.5),
            (0.1, 0.5, 0.3),
            (0.2, 0.25, 0.05),
            (0.05, 0.5, 0.1),
            (0.3, 0.2, 0.5),
            (0.1, 0.05, 0.5),
        ] {
            let got = union_depth(s, ra, rb);
            let want = brute(s, ra, rb);
            assert!(got <= want + 1e-9, "{s} {ra} {rb}: {got} > {want}");
            assert!(got >= want - 1e-5, "{s} {ra} {rb}: {got} ≪ {want}");
        }
        assert_eq!(union_depth(0.1, 0.05, 0.08), 0.0);
    }

    #[test]
    fn midpoint_of_two_deep_points_is_settled_far_above_tau() {
        // Two points at depth 0.05, 0.03 apart: the midpoint is at least √(0.05² − 0.015²) deep.
        let d = union_depth(0.015, 0.05, 0.05);
        assert!((d - (0.05f64.powi(2) - 0.015f64.powi(2)).sqrt()).abs() < 1e-15);
    }
}
