//! Which way a chain's last joint points (docs/algorithms.md "A chain's end turns along its
//! part").
//!
//! A joint list gives where each bone starts, not where the last bone of a chain ends: an
//! artist's foot bone runs from the ankle along the foot to the toes, a hand bone along the hand.
//! [`super::bones`] gives such a leaf a virtual segment continuing its incoming bone (what Blender's
//! importers do with a tail-less bone). Where that continuation leaves the skin at once, the part
//! lies elsewhere: a foot joint placed at the heel, near the sole, continues the shin into the
//! ground, its segment is nearly empty, and the shin's bone takes the foot that the artist gives
//! the foot joint (on the held-out and corpus artist skeletons, feet were the largest share of the
//! error after faces). Such a leaf turns to the direction, within 90° of its incoming bone (ahead
//! of the joint, never back along the limb), in which the inside runs farthest.
//!
//! Only a leaf inside the surface turns: one `leaf_start` moved in from off the skin marks a spot
//! on it (a mouth corner on the cheek), and ahead of it lies the body, not its part.
//!
//! "At once" is less than half the incoming bone's length: the measure `leaf_start` and
//! `attach`'s control rule already use for "this joint is not on its part's skin". A leaf whose
//! continuation runs at least that far keeps it, so hands, heads and tails that point along their
//! part do not move.

use rayon::prelude::*;

use super::bones::{MARCH_MAX, MARCH_STEP};
use crate::geom::{P3, V3};

/// Directions tried (a Fibonacci sphere, about 9° apart; half of them lie ahead of the joint).
const DIRECTIONS: usize = 512;

/// The direction of the leaf at `start` (inside) whose incoming bone is `dir`: `dir` itself when
/// the inside runs at least half of `|dir|` along it, else the direction within 90° of `dir`
/// along which the inside runs farthest (ties: the one nearest `dir`), scaled to `|dir|`.
/// Deterministic: a fixed set of directions, scanned in order.
pub(super) fn turn(start: &P3, dir: &V3, sdf: &(dyn Fn(&P3) -> f64 + Sync)) -> V3 {
    let len = dir.norm();
    if len <= 1e-12 || !len.is_finite() || sdf(start) >= 0.0 {
        return *dir;
    }
    let u0 = dir / len;
    let ahead = run(start, &u0, sdf);
    if ahead >= 0.5 * len {
        return *dir;
    }
    // The marches are independent (on every core); the best is then picked in the serial order.
    let ahead_dirs: Vec<(V3, f64)> = fibonacci_sphere(DIRECTIONS)
        .map(|u| (u, u.dot(&u0)))
        .filter(|&(_, c)| c > 0.0)
        .collect();
    let runs: Vec<f64> = ahead_dirs
        .par_iter()
        .map(|(u, _)| run(start, u, sdf))
        .collect();
    let mut best = (ahead, 1.0, u0);
    for (&(u, c), &l) in ahead_dirs.iter().zip(&runs) {
        if l > best.0 || (l == best.0 && c > best.1) {
            best = (l, c, u);
        }
    }
    best.2 * len
}

/// `n` unit vectors spread evenly over the sphere (the golden-angle spiral).
fn fibonacci_sphere(n: usize) -> impl Iterator<Item = V3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n).map(move |k| {
        let z = 1.0 - (2.0 * k as f64 + 1.0) / n as f64;
        let r = (1.0 - z * z).max(0.0).sqrt();
        let phi = golden * k as f64;
        V3::new(r * phi.cos(), r * phi.sin(), z)
    })
}

/// How far the inside runs from `start` along the unit `u`: the field march of the leaves'
/// segments (`MARCH_STEP`s, striding by the free distance far from the surface).
fn run(start: &P3, u: &V3, sdf: &dyn Fn(&P3) -> f64) -> f64 {
    let mut t = 0.0;
    while t + MARCH_STEP <= MARCH_MAX {
        let f = sdf(&(start + u * (t + MARCH_STEP)));
        if f >= 0.0 {
            break;
        }
        t += MARCH_STEP.max(-f * 0.9);
    }
    t
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Signed distance to the box `lo`–`hi`.
    fn sd_box(p: &P3, lo: [f64; 3], hi: [f64; 3]) -> f64 {
        let q = V3::new(
            (p.x - 0.5 * (lo[0] + hi[0])).abs() - 0.5 * (hi[0] - lo[0]),
            (p.y - 0.5 * (lo[1] + hi[1])).abs() - 0.5 * (hi[1] - lo[1]),
            (p.z - 0.5 * (lo[2] + hi[2])).abs() - 0.5 * (hi[2] - lo[2]),
        );
        q.map(|x| x.max(0.0)).norm() + q.x.max(q.y).max(q.z).min(0.0)
    }

    /// A leg (a column up z) standing on a foot that runs 0.4 toward −y.
    pub(in crate::skin) fn leg_and_foot(p: &P3) -> f64 {
        let leg = sd_box(p, [-0.05, -0.05, 0.0], [0.05, 0.05, 1.0]);
        let foot = sd_box(p, [-0.05, -0.4, 0.0], [0.05, 0.05, 0.08]);
        leg.min(foot)
    }

    #[test]
    fn a_heel_joint_turns_along_its_foot() {
        let heel = P3::new(0.0, 0.0, 0.03);
        let shin = V3::new(0.0, 0.0, -0.47);
        let d = turn(&heel, &shin, &leg_and_foot);
        assert!((d.norm() - 0.47).abs() < 1e-9);
        let u = d / d.norm();
        assert!(u.y < -0.95 && u.z < 0.0, "{u:?}");
    }

    #[test]
    fn a_leaf_with_room_ahead_keeps_its_bone_direction() {
        // A hand joint halfway down a long column: the inside runs on along the arm.
        let wrist = P3::new(0.0, 0.0, 0.5);
        let forearm = V3::new(0.0, 0.0, 0.3);
        assert_eq!(turn(&wrist, &forearm, &leg_and_foot), forearm);
        // Never backwards: from the top of the column pointing up, nothing lies ahead but the
        // direction stays within 90° of the bone.
        let top = P3::new(0.0, 0.0, 0.99);
        let up = V3::new(0.0, 0.0, 0.4);
        assert!(turn(&top, &up, &leg_and_foot).dot(&up) > 0.0);
    }
}
