//! Gradients of many nearby points (the medial test of [`crate::discretize::medial`] probes 8
//! points a few 10⁻⁶ apart around every face grid point): leaves remembered between queries, and
//! a bound that settles "the probes' gradients all agree" from one gradient per leaf met.

use rayon::prelude::*;

use super::{clamp_unit, trilinear, DistanceField, Located};
use crate::geom::{P3, V3};

/// Leaves recent [`DistanceField::gradient_hinted`] calls found, tried before a descent: the
/// probes around a point on a leaf face straddle two leaves (four on an edge), and one
/// remembered leaf would be lost at every switch.
#[derive(Clone, Copy, Default)]
pub struct LeafHints<'a> {
    slots: [Option<LeafHint<'a>>; HINT_SLOTS],
    /// Slot the next miss overwrites (round robin).
    next: usize,
    /// Per leaf of the field the hints are used with, its [`Spread`] (from
    /// [`DistanceField::spreads`]); without it each bound computes its own.
    spreads: Option<&'a [Spread]>,
}

impl<'a> LeafHints<'a> {
    /// Hints that read each leaf's `Spread` from `spreads`, which must come from
    /// [`DistanceField::spreads`] of the field they are used with: neighbouring face points meet
    /// the same leaves again and again, and the spread was most of the bound's arithmetic.
    pub fn with_spreads(spreads: &'a [Spread]) -> Self {
        Self {
            spreads: Some(spreads),
            ..Self::default()
        }
    }
}

/// What a leaf's gradient variation bound ([`variation`]) needs besides the probe width: the
/// sum over the gradient's components of their largest slopes, and the largest corner value
/// (for the rounding slack).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    slopes: f64,
    scale: f64,
}

/// Leaves a [`LeafHints`] remembers: the most that probes around a point on a leaf edge meet.
const HINT_SLOTS: usize = 4;

/// One remembered leaf: its cell coordinates (lattice coordinates shifted right by `shift`) and
/// its values.
#[derive(Clone, Copy)]
struct LeafHint<'a> {
    key: [u32; 3],
    shift: u32,
    at: Located<'a>,
}

/// Angle (radians) by which [`DistanceField::probes_surely_agree`] must prove every pair of
/// probe gradients closer than 90°: far above the rounding of the normalized dot products the
/// full test computes (~10⁻¹⁵), so "proved" always means the full test finds no pair ≤ 0.
const AGREE_MARGIN: f64 = 1e-6;
/// Relative slack added to each leaf's gradient variation bound for the rounding of the
/// gradients themselves (corner values are f32, the arithmetic f64).
const ROUNDING_SLACK: f64 = 1e-9;

impl DistanceField {
    /// [`Self::gradient`], reusing a leaf that an earlier call with the same `hints` found when
    /// `p` falls in it (the same leaf the descent would find, so the same value).
    pub fn gradient_hinted<'a>(&'a self, p: &P3, hints: &mut LeafHints<'a>) -> V3 {
        if !p.coords.iter().all(|c| c.is_finite()) {
            return V3::zeros();
        }
        let q = clamp_unit(p);
        if q != *p {
            return (p - q).try_normalize(0.0).unwrap_or_else(V3::zeros);
        }
        let Some(l) = self.leaf_hinted(&q, hints) else {
            return V3::zeros();
        };
        raw_gradient(l.c, &local(&l, &q)) / l.size
    }

    /// [`Self::eval`] at `p`, reusing a leaf of `hints` when `p` falls in it: the same leaf and
    /// the same arithmetic, so the same value bit for bit.
    pub fn eval_hinted<'a>(&'a self, p: &P3, hints: &mut LeafHints<'a>) -> f64 {
        if !p.coords.iter().all(|c| c.is_finite()) || clamp_unit(p) != *p {
            return self.eval(p);
        }
        let Some(l) = self.leaf_hinted(p, hints) else {
            return self.eval(p);
        };
        let u = (p.coords - l.lo) / l.size;
        trilinear(
            l.c,
            u.x.clamp(0.0, 1.0),
            u.y.clamp(0.0, 1.0),
            u.z.clamp(0.0, 1.0),
        )
    }

    /// Every leaf's `Spread`, in leaf order (for [`LeafHints::with_spreads`]).
    pub fn spreads(&self) -> Vec<Spread> {
        self.leaves
            .par_iter()
            .with_min_len(1024)
            .map(spread)
            .collect()
    }

    /// The [`Spread`] of leaf `l`: from the table of `hints` when it has one.
    fn spread_of(&self, l: &Located, hints: &LeafHints) -> Spread {
        let index = (l.c.as_ptr() as usize).wrapping_sub(self.leaves.as_ptr() as usize)
            / std::mem::size_of::<[f32; 8]>();
        match hints.spreads {
            Some(t) if t.len() == self.leaves.len() && index < t.len() => t[index],
            _ => spread(l.c),
        }
    }

    /// True only if the normalized gradients at the 8 probes `c + r·(±1, ±1, ±1)` (all inside
    /// \[0,1\]³) provably have positive pairwise dot products: per leaf the probes meet, one
    /// gradient and a bound on how far the trilinear gradient moves over the probes (it is
    /// bilinear per component), then angles. `false` means "not proved", never "disagree".
    pub fn probes_surely_agree<'a>(&'a self, c: &P3, r: f64, hints: &mut LeafHints<'a>) -> bool {
        // The same sums as the probes' `c + (±r)`, so every probe is inside the cube.
        if !(0..3).all(|a| c[a] - r >= 0.0 && c[a] + r <= 1.0) {
            return false;
        }
        // Per axis the probes' two coordinates: `c − r` where probe k's bit is clear, else `c + r`
        // (the same bits as `c + (±r)`).
        let sides = [0, 1, 2].map(|a| [c[a] - r, c[a] + r]);
        // Per leaf met: the unit gradient there and the bound on the angle (radians) between it
        // and the gradient at any probe in that leaf.
        let mut met = [(V3::zeros(), 0.0); 8];
        let mut n = 0;
        // Probes inside a leaf met so far (bit k = probe k); the lowest other one is looked up
        // next, as a probe-by-probe scan skipping those in met leaves would.
        let mut covered = 0u8;
        while covered != u8::MAX {
            let k = (!covered).trailing_zeros() as usize;
            let p = P3::new(sides[0][k & 1], sides[1][k >> 1 & 1], sides[2][k >> 2 & 1]);
            let Some(l) = self.leaf_hinted(&p, hints) else {
                return false;
            };
            // Probe k counts as covered even if the box test misses it (a point on the cube's
            // upper faces), so the loop ends.
            covered |= probes_inside(&l, &sides) | 1 << k;
            let g = raw_gradient(l.c, &local(&l, &p));
            let norm = g.norm();
            // sin of the angle to `g` is at most spread / norm < 1/4 (or nothing is proved);
            // the angle is then at most π/2 times that.
            let sine = variation(self.spread_of(&l, hints), 2.5 * r / l.size) / norm;
            if sine.is_nan() || sine >= 0.25 {
                return false;
            }
            met[n] = (g / norm, std::f64::consts::FRAC_PI_2 * sine);
            n += 1;
        }
        // Two probes are closer than 90° when the angle between their leaves' gradients plus
        // both bounds stays below it: cos(between) > sin(margin + bounds), implied by the test
        // below as sin x ≤ x.
        met[..n].iter().enumerate().all(|(a, ma)| {
            met[a..n]
                .iter()
                .all(|mb| ma.0.dot(&mb.0) > AGREE_MARGIN + ma.1 + mb.1)
        })
    }

    /// The leaf containing `q` ∈ \[0,1\]³, from `hints` when it is one of them.
    fn leaf_hinted<'a>(&'a self, q: &P3, hints: &mut LeafHints<'a>) -> Option<Located<'a>> {
        let ix = self.lattice_index(q);
        let hit = hints
            .slots
            .iter()
            .flatten()
            .find(|h| ix.map(|i| i >> h.shift) == h.key);
        if let Some(h) = hit {
            return Some(h.at);
        }
        let (at, shift) = self.locate_index(ix)?;
        hints.slots[hints.next] = Some(LeafHint {
            key: ix.map(|i| i >> shift),
            shift,
            at,
        });
        hints.next = (hints.next + 1) % HINT_SLOTS;
        Some(at)
    }
}

/// The probes (bit k = probe k, its bit `a` choosing `sides[a][1]` over `sides[a][0]`) that lie
/// in leaf `l`'s half-open box: the lattice lookup finds `l` for them too (leaf corners and sides
/// are dyadic, so the comparisons are exact).
fn probes_inside(l: &Located, sides: &[[f64; 2]; 3]) -> u8 {
    // Per axis, the probes whose bit `a` is set.
    const HIGH: [u8; 3] = [0b1010_1010, 0b1100_1100, 0b1111_0000];
    let mut inside = u8::MAX;
    for (a, [low, high]) in sides.iter().enumerate() {
        let (lo, hi) = (l.lo[a], l.lo[a] + l.size);
        // Non-short-circuit `&`: four comparisons, no branches.
        let low_in = (*low >= lo) & (*low < hi);
        let high_in = (*high >= lo) & (*high < hi);
        inside &= if low_in { u8::MAX } else { HIGH[a] };
        inside &= if high_in { u8::MAX } else { !HIGH[a] };
    }
    inside
}

/// Local coordinates of `q` in leaf `l`, clamped to \[0,1\]³.
fn local(l: &Located, q: &P3) -> V3 {
    ((q.coords - l.lo) / l.size).map(|t| t.clamp(0.0, 1.0))
}

/// Gradient of the trilinear leaf with corner values `c` at local coordinates `u`, in units of
/// the leaf's side (divide by the side for the field's gradient).
fn raw_gradient(c: &[f32; 8], u: &V3) -> V3 {
    let c = c.map(f64::from);
    let (x, y, z) = (u.x, u.y, u.z);
    let gx = (c[1] - c[0]) * (1.0 - y) * (1.0 - z)
        + (c[3] - c[2]) * y * (1.0 - z)
        + (c[5] - c[4]) * (1.0 - y) * z
        + (c[7] - c[6]) * y * z;
    let gy = (c[2] - c[0]) * (1.0 - x) * (1.0 - z)
        + (c[3] - c[1]) * x * (1.0 - z)
        + (c[6] - c[4]) * (1.0 - x) * z
        + (c[7] - c[5]) * x * z;
    let gz = (c[4] - c[0]) * (1.0 - x) * (1.0 - y)
        + (c[5] - c[1]) * x * (1.0 - y)
        + (c[6] - c[2]) * (1.0 - x) * y
        + (c[7] - c[3]) * x * y;
    V3::new(gx, gy, gz)
}

/// Bound on `|raw_gradient(c, u) − raw_gradient(c, v)|` for local points `u`, `v` at most `w`
/// apart along each axis, from the leaf's [`spread`].
fn variation(s: Spread, w: f64) -> f64 {
    w * s.slopes + ROUNDING_SLACK * s.scale
}

/// Each component of a trilinear leaf's gradient is bilinear in the other two coordinates with
/// coefficients `a` (its edge differences at the four corners of that square), so over points
/// `w` apart along each axis it moves by at most `w` times its largest slope along each of them;
/// the vector by at most `w` times the sum, `slopes`.
fn spread(c: &[f32; 8]) -> Spread {
    let c = c.map(f64::from);
    let component = |a: [f64; 4]| {
        let along_first = (a[1] - a[0]).abs().max((a[3] - a[2]).abs());
        let along_second = (a[2] - a[0]).abs().max((a[3] - a[1]).abs());
        along_first + along_second
    };
    Spread {
        slopes: component([c[1] - c[0], c[3] - c[2], c[5] - c[4], c[7] - c[6]])
            + component([c[2] - c[0], c[3] - c[1], c[6] - c[4], c[7] - c[5]])
            + component([c[4] - c[0], c[5] - c[1], c[6] - c[2], c[7] - c[3]]),
        scale: c.iter().fold(0.0_f64, |m, v| m.max(v.abs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_inside_a_leaf_are_those_its_box_holds() {
        // A 64-bit LCG over a lattice of leaves of sides 2^-1 … 2^-8, probes around points on
        // and near their faces, edges and corners (where a probe box straddles leaves).
        let mut next = crate::util::test_rng::lcg(7);
        let c = [0.0f32; 8];
        let (mut split, mut whole) = (0, 0);
        for _ in 0..20_000 {
            let size = 0.5f64.powi(1 + (next() * 8.0) as i32);
            let cells = (1.0 / size) as u32;
            let lo = V3::from_fn(|_, _| f64::from((next() * f64::from(cells)) as u32) * size);
            let l = Located { c: &c, lo, size };
            let r = [3e-6, 1e-3, 0.01][(next() * 3.0) as usize];
            // Each coordinate on a face of the leaf, just off it, or anywhere in it.
            let centre = P3::from(V3::from_fn(|a, _| {
                let t =
                    [0.0, 1.0, 0.5 * r, 1.0 - 0.5 * r, next()][((next() * 9.0) as usize).min(4)];
                lo[a] + t * size
            }));
            let sides = [0, 1, 2].map(|a| [centre[a] - r, centre[a] + r]);
            let mask = probes_inside(&l, &sides);
            for k in 0..8 {
                let o = |bit: usize| if k >> bit & 1 == 0 { -r } else { r };
                let p = centre + V3::new(o(0), o(1), o(2));
                let held = (0..3).all(|a| p[a] >= lo[a] && p[a] < lo[a] + size);
                assert_eq!(
                    mask >> k & 1 == 1,
                    held,
                    "probe {k} of {centre:?}, leaf {lo:?} {size}"
                );
            }
            split += usize::from(mask != 0 && mask != u8::MAX);
            whole += usize::from(mask == u8::MAX);
        }
        // Boxes straddling the leaf and boxes inside it both occur.
        assert!(
            split > 2_000 && whole > 2_000,
            "{split} split, {whole} whole"
        );
    }
}
