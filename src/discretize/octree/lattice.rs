//! The 3×3×3 lattice of a tested cell (indices i + 3j + 9k, i, j, k ∈ {0, 1, 2}): the trilinear
//! interpolant of the corners at its points and the Lipschitz bounds that settle a point's split
//! test without evaluating it (Baran & Popović 2007 §3.1; docs/algorithms.md#distance-field).
//!
//! Only the 19 points that are not corners are ever tested (a corner's interpolant is its own
//! value), so everything here works on those 19, listed once in [`NON_CORNER`], instead of
//! filtering 27 indices with divisions in every tested cell.

use std::sync::LazyLock;

/// True for the 8 corners of the 3×3×3 lattice (no coordinate is a midpoint).
pub const fn is_corner(idx: usize) -> bool {
    idx % 3 != 1 && idx / 3 % 3 != 1 && idx / 9 != 1
}

/// Lattice points that are not corners, ascending: the order the split test evaluates them in.
pub const NON_CORNER: [usize; 19] = {
    let mut out = [0; 19];
    let (mut n, mut idx) = (0, 0);
    while idx < 27 {
        if !is_corner(idx) {
            out[n] = idx;
            n += 1;
        }
        idx += 1;
    }
    out
};

/// Position of the centre (lattice index 13) in [`NON_CORNER`].
pub const CENTRE: usize = 9;

/// Lattice index of corner `m` (bit 0 = +x, bit 1 = +y, bit 2 = +z).
#[inline]
pub const fn corner_index(m: usize) -> usize {
    2 * (m & 1) + 6 * (m >> 1 & 1) + 18 * (m >> 2 & 1)
}

/// Trilinear weight of corner `m` at lattice point `idx`, in eighths: the per-axis weights are
/// 0, ½ or 1, so their product is exact in f64.
const fn weight_eighths(idx: usize, m: usize) -> u32 {
    axis_weight(idx % 3, m & 1)
        * axis_weight(idx / 3 % 3, (m >> 1) & 1)
        * axis_weight(idx / 9, (m >> 2) & 1)
}

/// One axis's weight in halves: lattice coordinate `t` ∈ {0,1,2}, corner bit `bit`.
const fn axis_weight(t: usize, bit: usize) -> u32 {
    match (t, bit) {
        (0, 0) | (2, 1) => 2,
        (1, _) => 1,
        _ => 0,
    }
}

/// [`weight_eighths`] for every non-corner point ([`NON_CORNER`] order) and corner, as f64.
const WEIGHTS: [[f64; 8]; 19] = {
    let mut w = [[0.0; 8]; 19];
    let mut j = 0;
    while j < 19 {
        let mut m = 0;
        while m < 8 {
            w[j][m] = weight_eighths(NON_CORNER[j], m) as f64 / 8.0;
            m += 1;
        }
        j += 1;
    }
    w
};

/// Trilinear interpolant of the corners at the 19 non-corner points ([`NON_CORNER`] order).
/// Summed corner by corner in the same order for every point, so a value does not depend on
/// which cell asks.
#[inline]
pub fn interp(c: &[f64; 8]) -> [f64; 19] {
    std::array::from_fn(|j| WEIGHTS[j].iter().zip(c).map(|(w, v)| w * v).sum())
}

/// Distances in half cell sides from each corner (rows) and from the centre (row 8) to the
/// non-corner points ([`NON_CORNER`] order): a table instead of a square root per point.
static DIST: LazyLock<[[f64; 19]; 9]> = LazyLock::new(|| {
    std::array::from_fn(|row| {
        let from = if row < 8 { corner_index(row) } else { 13 };
        std::array::from_fn(|j| lattice_dist(from, NON_CORNER[j]))
    })
});

/// Distance between lattice points `a` and `b`, in half cell sides.
pub fn lattice_dist(a: usize, b: usize) -> f64 {
    let d2 = (a % 3).abs_diff(b % 3).pow(2)
        + (a / 3 % 3).abs_diff(b / 3 % 3).pow(2)
        + (a / 9).abs_diff(b / 9).pow(2);
    (d2 as f64).sqrt()
}

/// Relative slack on τ in [`Bounds::settled`], far above the rounding of the exact distances.
const SETTLED_SLACK: f64 = 1e-9;

/// Interval bounds on the signed distance at the 19 non-corner points of a cell, from the
/// 1-Lipschitz property: at a point `x` it lies within `v(c) ± |x − c|` of every known point `c`
/// (the 8 corners, then the centre).
pub struct Bounds {
    lower: [f64; 19],
    upper: [f64; 19],
}

impl Bounds {
    /// Bounds from the 8 corner values; `half` = half the cell side (normalized units).
    pub fn from_corners(corners: &[f64; 8], half: f64) -> Self {
        let mut b = Bounds {
            lower: [f64::NEG_INFINITY; 19],
            upper: [f64::INFINITY; 19],
        };
        let dist = &*DIST;
        for (row, v) in dist.iter().zip(corners) {
            b.add(row, *v, half);
        }
        b
    }

    /// Tighten with the centre's value.
    pub fn add_center(&mut self, v: f64, half: f64) {
        self.add(&DIST[8], v, half);
    }

    #[inline]
    fn add(&mut self, row: &[f64; 19], v: f64, half: f64) {
        for ((lo, up), unit) in self.lower.iter_mut().zip(&mut self.upper).zip(row) {
            let d = unit * half;
            // Plain comparisons (no NaN here) so the loop vectorizes.
            let (l, u) = (v - d, v + d);
            *lo = if l > *lo { l } else { *lo };
            *up = if u < *up { u } else { *up };
        }
    }

    /// True if point `j` ([`NON_CORNER`] order)'s split test is decided without evaluating it:
    /// its interval lies within τ of the interpolant `at[j]`, so `|v(x) − interp| ≤ τ` is
    /// certain and the exact value could not split the cell.
    #[inline]
    fn settles(&self, at: &[f64; 19], j: usize, limit: f64) -> bool {
        self.upper[j] - at[j] <= limit && at[j] - self.lower[j] <= limit
    }

    /// Bit `j` set for every point `j` ([`NON_CORNER`] order) [`Self::settles`] decides; the
    /// centre never (it is a known value once these bounds include it).
    pub fn settled(&self, at: &[f64; 19], tol: f64) -> u32 {
        let limit = tol * (1.0 - SETTLED_SLACK);
        (0..19)
            .filter(|&j| j != CENTRE && self.settles(at, j, limit))
            .fold(0, |mask, j| mask | 1 << j)
    }

    /// Whether the bounds from the corners alone settle all 19 points, centre included. The
    /// centre, farthest from the corners, is tried first on its own (most cells stop there), with
    /// the same operations [`Self::from_corners`] does for it, so the answer is the same bits.
    pub fn corners_settle(corners: &[f64; 8], half: f64, at: &[f64; 19], tol: f64) -> Settle {
        let limit = tol * (1.0 - SETTLED_SLACK);
        let dist = &*DIST;
        let (mut lo, mut up) = (f64::NEG_INFINITY, f64::INFINITY);
        for (row, v) in dist.iter().zip(corners) {
            let d = row[CENTRE] * half;
            let (l, u) = (v - d, v + d);
            lo = if l > lo { l } else { lo };
            up = if u < up { u } else { up };
        }
        if !(up - at[CENTRE] <= limit && at[CENTRE] - lo <= limit) {
            return Settle::Not(None);
        }
        let b = Self::from_corners(corners, half);
        if (0..19).all(|j| b.settles(at, j, limit)) {
            Settle::All
        } else {
            Settle::Not(Some(b))
        }
    }
}

/// What the corners alone settle ([`Bounds::corners_settle`]).
// Returned by value once per tested cell and never stored: boxing the bounds would add an
// allocation per cell, which is what this type saves.
#[allow(clippy::large_enum_variant)]
pub enum Settle {
    /// Every point: the cell stays a leaf.
    All,
    /// Not every point; the corners' bounds when they were computed (kept for the centre).
    Not(Option<Bounds>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_corner_points_are_the_nineteen_midpoints_with_the_centre_at_its_slot() {
        assert_eq!(NON_CORNER[CENTRE], 13);
        assert!(NON_CORNER.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((0..27).filter(|&i| is_corner(i)).count(), 8);
        assert!((0..8).all(|m| is_corner(corner_index(m))));
    }

    /// The bounds as the split test defined them before the 19-point tables: all 27 points, a
    /// square root per distance, every known point in turn.
    fn naive(known: &[(usize, f64)], half: f64) -> ([f64; 27], [f64; 27]) {
        let (mut lo, mut up) = ([f64::NEG_INFINITY; 27], [f64::INFINITY; 27]);
        for &(at, v) in known {
            for idx in 0..27 {
                let d = lattice_dist(at, idx) * half;
                lo[idx] = lo[idx].max(v - d);
                up[idx] = up[idx].min(v + d);
            }
        }
        (lo, up)
    }

    #[test]
    fn bounds_and_the_centre_first_shortcut_equal_the_naive_bounds_bit_for_bit() {
        let mut rnd = crate::util::test_rng::lcg(12345);
        let (mut all, mut not_all) = (0, 0);
        for _ in 0..4000 {
            let half = 0.01 * (1.0 + rnd());
            let base = rnd() - 0.5;
            // Corner values a 1-Lipschitz field could take, some nearly linear (settled cells).
            let c: [f64; 8] = std::array::from_fn(|_| base + half * (rnd() - 0.5) * 0.2);
            let centre = base + half * (rnd() - 0.5) * 0.2;
            let tol = 3.0 * half * rnd();
            let corners: Vec<(usize, f64)> = (0..8).map(|m| (corner_index(m), c[m])).collect();
            let (lo, up) = naive(&corners, half);
            let at = interp(&c);
            let limit = tol * (1.0 - SETTLED_SLACK);
            let want_all = NON_CORNER
                .iter()
                .enumerate()
                .all(|(j, &i)| up[i] - at[j] <= limit && at[j] - lo[i] <= limit);
            let got = Bounds::corners_settle(&c, half, &at, tol);
            assert_eq!(matches!(got, Settle::All), want_all);
            if want_all {
                all += 1;
            } else {
                not_all += 1;
            }
            let mut b = Bounds::from_corners(&c, half);
            for (j, &i) in NON_CORNER.iter().enumerate() {
                assert_eq!(b.lower[j].to_bits(), lo[i].to_bits());
                assert_eq!(b.upper[j].to_bits(), up[i].to_bits());
            }
            if let Settle::Not(Some(kept)) = got {
                assert!(kept.lower == b.lower && kept.upper == b.upper);
            }
            b.add_center(centre, half);
            let mut known = corners.clone();
            known.push((13, centre));
            let (lo, up) = naive(&known, half);
            let mask = b.settled(&at, tol);
            for (j, &i) in NON_CORNER.iter().enumerate() {
                let want = i != 13 && up[i] - at[j] <= limit && at[j] - lo[i] <= limit;
                assert_eq!(mask >> j & 1 == 1, want, "point {i}");
            }
        }
        assert!(
            all > 100 && not_all > 100,
            "both outcomes exercised ({all} / {not_all})"
        );
    }

    #[test]
    fn the_weights_interpolate_the_corners_trilinearly() {
        let c = [0.3, -1.0, 2.5, 0.125, -0.75, 1.5, 4.0, -2.0];
        let at = interp(&c);
        for (j, &idx) in NON_CORNER.iter().enumerate() {
            let [x, y, z] = [idx % 3, idx / 3 % 3, idx / 9].map(|t| t as f64 / 2.0);
            let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
            let yz = |k: usize| lerp(c[k], c[k + 1], x);
            let want = lerp(lerp(yz(0), yz(2), y), lerp(yz(4), yz(6), y), z);
            assert!(
                (at[j] - want).abs() < 1e-12,
                "point {idx}: {} vs {want}",
                at[j]
            );
        }
    }
}
