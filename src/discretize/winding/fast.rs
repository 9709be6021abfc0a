//! What the field reads of a winding number, computed fast and certified
//! (docs/algorithms.md#winding-class).
//!
//! The field never uses a winding number's value, only its class: |w| > ½ (inside) and whether
//! |w| lies within `CONFIDENT` of ½ (near the soft cap over a hole: no sign anchor). Most of the
//! dipole sum's cost is `atan2` in the exact solid angles of the near triangles (~130
//! instructions of libm's each, about a quarter of `attach` on open and multi-part meshes). Here
//! the same sum, in the same order, uses a polynomial `atan2` whose error is bounded
//! ([`ATAN2_ERROR`]), and carries a bound on how far its total can be from [`super::winding_number`]'s
//! (the error of each fast term, plus floating-point summation error of both sums). When |w| is
//! farther than that bound from every class boundary (¼, ½, ¾) the class is the exact sum's;
//! otherwise the exact sum is evaluated. So the class — and every field value, rig and weight
//! built from it — is the exact sum's, bit for bit, while nearly every query pays the cheap sum.

use super::{for_each_term, solid_angle, Dipole, Term};
use crate::discretize::bvh::Bvh;
use crate::discretize::octree::CONFIDENT;
use crate::geom::V3;

/// What the field reads of a winding number `w` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindingClass {
    /// |w| > ½.
    pub inside: bool,
    /// ||w| − ½| < `CONFIDENT`: near the soft w = ½ cap over a hole, not a sign anchor.
    pub near_cap: bool,
}

impl WindingClass {
    /// The class of `w`, by the expressions the field has always used.
    pub fn of(w: f64) -> Self {
        Self {
            inside: w.abs() > 0.5,
            near_cap: (w.abs() - 0.5).abs() < CONFIDENT,
        }
    }

    /// The class of every value within `err` of `w` if they all share one, else `None`. The
    /// class is a function of |w| alone, constant between its boundaries ½ − C, ½ and ½ + C (C =
    /// `CONFIDENT`; `(a − ½).abs() < C` is exactly ½ − C < a < ½ + C in floating point, the
    /// subtraction being exact near those values), and |·| moves no value farther than `err`.
    pub fn certain(w: f64, err: f64) -> Option<Self> {
        let a = w.abs();
        let clear = [0.5 - CONFIDENT, 0.5, 0.5 + CONFIDENT]
            .iter()
            .all(|&b| (a - b).abs() > err);
        (clear && err.is_finite()).then(|| Self::of(w))
    }
}

/// atan(a) ≈ a · P(a²) on [0, 1]: minimax (Lawson-weighted) fit, measured max error 8.9e-10
/// (`tests` below sample it densely against libm).
const ATAN_COEFFS: [f64; 10] = [
    0.999_999_980_560_266_1,
    -0.333_331_803_765_590_3,
    0.199_964_368_066_056_72,
    -0.142_472_226_259_493_24,
    0.108_780_097_025_460_96,
    -0.082_137_611_217_462_99,
    0.055_028_092_182_931_82,
    -0.028_490_767_980_231_71,
    0.009_567_336_209_255_4,
    -0.001_509_302_317_700_148,
];

/// Bound on |[`atan2_fast`] − libm `atan2`| wherever `atan2_fast` answers: ten times the
/// polynomial's measured error (rounding in the reduction and the quadrant steps adds a few
/// units in the last place of π, and libm's own error is under one).
pub const ATAN2_ERROR: f64 = 1e-8;

/// `y.atan2(x)` within [`ATAN2_ERROR`], with libm's quadrant and signed-zero conventions; `None`
/// when both are zero or either is not finite (the caller then uses libm).
#[inline]
pub fn atan2_fast(y: f64, x: f64) -> Option<f64> {
    let (ax, ay) = (x.abs(), y.abs());
    let (lo, hi) = if ay > ax { (ax, ay) } else { (ay, ax) };
    if !(hi > 0.0 && hi.is_finite()) {
        return None;
    }
    let a = lo / hi;
    let s = a * a;
    let p = ATAN_COEFFS.iter().rev().fold(0.0, |acc, &c| acc * s + c);
    let mut r = a * p;
    if ay > ax {
        r = std::f64::consts::FRAC_PI_2 - r;
    }
    if x.is_sign_negative() {
        r = std::f64::consts::PI - r;
    }
    Some(if y.is_sign_negative() { -r } else { r })
}

/// [`solid_angle`] with [`atan2_fast`]: the value and whether the fast `atan2` was used (else it
/// is libm's, exactly [`solid_angle`]).
#[inline]
fn solid_angle_fast(p: &V3, v: &[V3; 3]) -> (f64, bool) {
    let a = v[0] - p;
    let b = v[1] - p;
    let c = v[2] - p;
    let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
    let num = a.dot(&b.cross(&c));
    let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
    match atan2_fast(num, den) {
        Some(t) => (2.0 * t, true),
        None => (solid_angle(p, v), false),
    }
}

/// [`super::winding_number`]'s sum at `p`, in the same order with `solid_angle_fast`, and a
/// bound on its distance to [`super::winding_number`]'s result. Per fast term the error is at
/// most 2·[`ATAN2_ERROR`] (plus libm's own ulp); each of the two floating-point sums is within
/// nu·Σ|terms| of its real sum (u = 2⁻⁵³, doubled here for slack); the far terms are the same
/// expressions in both sums, and the division by 4π adds a relative u.
pub fn winding_number_bounded(bvh: &Bvh, dip: &[Dipole], p: &V3) -> (f64, f64) {
    let (mut omega, mut abs_sum) = (0.0f64, 0.0f64);
    let (mut terms, mut fast) = (0usize, 0usize);
    for_each_term(bvh, dip, p, |term| {
        let x = match term {
            Term::Far(x) => x,
            Term::Near(v) => {
                let (x, used) = solid_angle_fast(p, v);
                fast += usize::from(used);
                x
            }
        };
        omega += x;
        abs_sum += x.abs();
        terms += 1;
    });
    let four_pi = 4.0 * std::f64::consts::PI;
    let per_term = 2.0 * (ATAN2_ERROR + 4.0 * f64::EPSILON);
    let term_err = fast as f64 * per_term;
    let gamma = 2.0 * terms as f64 * f64::EPSILON;
    let sum_err = term_err + gamma * (2.0 * abs_sum + term_err);
    let w = omega / four_pi;
    (w, sum_err / four_pi + 2.0 * f64::EPSILON * w.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_atan2_is_within_its_bound_in_every_quadrant() {
        // Dense on the reduced argument a ∈ [0, 1] (both octant halves, all four quadrants).
        // The polynomial's error has about ten extrema on [0, 1]: samples 5e-7 apart resolve
        // it, and the bound is a further factor 5 above the worst sample.
        let n = 2_000_000;
        let mut worst = 0.0f64;
        for i in 0..=n {
            let a = i as f64 / n as f64;
            for (y, x) in [(a, 1.0), (1.0, a)] {
                for (sy, sx) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                    let (y, x) = (sy * y * 3.7, sx * x * 3.7);
                    let f = atan2_fast(y, x).expect("finite, not both zero");
                    worst = worst.max((f - y.atan2(x)).abs());
                }
            }
        }
        assert!(worst < ATAN2_ERROR / 5.0, "max error {worst:e}");
        // Signed zeros follow libm's conventions (±0 and ±π).
        for (y, x) in [(0.0, 1.0), (-0.0, 1.0), (0.0, -1.0), (-0.0, -1.0)] {
            assert_eq!(atan2_fast(y, x), Some(f64::atan2(y, x)), "{y} {x}");
        }
        assert_eq!(atan2_fast(0.0, 0.0), None);
        assert_eq!(atan2_fast(1.0, f64::NAN), None);
        assert_eq!(atan2_fast(f64::INFINITY, 1.0), None);
    }

    #[test]
    fn a_class_is_certain_only_away_from_its_boundaries() {
        assert_eq!(
            WindingClass::certain(0.9, 0.1),
            Some(WindingClass {
                inside: true,
                near_cap: false
            })
        );
        assert_eq!(
            WindingClass::certain(-0.3, 0.01),
            Some(WindingClass::of(-0.3))
        );
        assert!(WindingClass::of(-0.3).near_cap && !WindingClass::of(-0.3).inside);
        for b in [0.25, 0.5, 0.75, -0.5] {
            assert_eq!(WindingClass::certain(b + 1e-9, 1e-8), None);
        }
        assert_eq!(WindingClass::certain(0.0, f64::NAN), None);
    }
}
