//! Continuous refinement (Baran & Popović 2007 §3.5; docs/algorithms.md#refinement): minimise Σ over bones of
//! `15000·S + 0.25·L + 2·A + Y` (surface, length, orientation, per-bone asymmetry) by gradient descent
//! with doubling line searches — 10 outer iterations, each two full-gradient line searches then one per
//! bone — exactly the original's schedule, but with an **analytic gradient for S** (the only expensive
//! term: nearest medial sample + field) and central differences for the cheap closed-form terms, and
//! with a line search that never keeps a move that raised the energy. Pinned (hinted) joints are
//! projected back into their hint ball after every move, and points outside the surface always pay
//! the full surface penalty (see [`Problem::refine`]). Normalized frame throughout.

use std::cell::RefCell;

use super::nearest::{unit, PointIndex};
use crate::discretize::Field;
use crate::geom::{P3, V3};

/// One full-skeleton bone: child joint, parent joint, template vector (scaled, normalized frame),
/// and the earlier mirror bone (child index) for the Y term.
#[derive(Clone, Debug)]
pub struct Bone {
    /// Child joint index.
    pub child: usize,
    /// Parent joint index.
    pub parent: usize,
    /// Template bone vector `S(child) − S(parent)`, scaled and rotated into the normalized frame.
    pub vec: V3,
    /// Index (into the bone list) of the mirror bone, set on the later bone of a pair.
    pub sym: Option<usize>,
}

/// What refinement needs besides the joint positions.
pub struct Problem<'a> {
    /// The bones.
    pub bones: Vec<Bone>,
    /// Distance field.
    pub field: &'a dyn Field,
    /// Medial samples index.
    pub medial: &'a PointIndex,
    /// Pinned joints: `(joint, centre, radius)`.
    pub pins: Vec<(usize, P3, f64)>,
    /// Surface terms already evaluated (start with `SurfaceCache::default()`).
    pub cache: SurfaceCache,
}

// Weights and shapes of the refinement energy: the original code's values (Baran & Popović 2007
// §3.5 gives the form and says the α's were chosen by hand; docs/algorithms.md#refinement).
/// α_S, weight of the surface term S.
const ALPHA_S: f64 = 15000.0;
/// α_L, weight of the length term L.
const ALPHA_L: f64 = 0.25;
/// α_O, weight of the orientation term A (the asymmetry term Y has weight 1).
const ALPHA_O: f64 = 2.0;
/// Points per bone at which S is evaluated (from the child, the parent excluded).
const SURFACE_SAMPLES: usize = 10;
/// Depth (normalized units) below which a bone point starts to pay S.
const SURFACE_DEPTH: f64 = 0.05;
/// Added to the cap of S so a point exactly at that depth still pays a little.
const SURFACE_FLOOR: f64 = 0.001;
/// S ignores a point whose penalty distance is at most this (so deep points never count).
const SURFACE_IGNORED: f64 = 0.003;
/// L never falls below this (only bones that are too short pay).
const LENGTH_MIN: f64 = 0.5;
/// Regularizer of the squared lengths in L.
const LENGTH_EPS: f64 = 1e-4;
/// A = (ORIENT_BASE + ORIENT_SLOPE · angle)³.
const ORIENT_BASE: f64 = 0.3;
const ORIENT_SLOPE: f64 = 0.5;
/// A bone pointing backwards (negative dot with its template vector) pays A this many times.
const BACKWARD_FACTOR: f64 = 10.0;
/// Y never falls below this for a mirrored bone; its squared lengths are regularized by `SYM_EPS`.
const SYM_MIN: f64 = 1.05;
const SYM_EPS: f64 = 0.001;
/// First line-search step: `STEP0 / √(STEP_EPS + |dir|²)`.
const STEP0: f64 = 0.0005;
const STEP_EPS: f64 = 0.001;
/// The projection in L is clamped from below here (the original's value), so a reversed bone's
/// L stays finite and A (×`BACKWARD_FACTOR`) drives it.
const PROJ_MIN: f64 = -10.0;
/// Full-gradient line searches per outer iteration (then one per bone), the original's schedule.
const FULL_SEARCHES: usize = 2;
/// At most this many step doublings per line search [Geppetto: bounds the work of one search;
/// the step then grows by 2^40, far past any move inside the unit cube for usual gradients].
const MAX_DOUBLINGS: usize = 40;
/// Central-difference step for the gradient of the cheap terms (normalized units) [Geppetto].
const FD_STEP: f64 = 1e-7;

/// Slots per bone in [`SurfaceCache`]: the doubling line search returns to a point it evaluated
/// one or two trials earlier (the last accepted step), and the per-bone phase re-evaluates bones
/// whose ends did not move.
const CACHE_SLOTS: usize = 4;

/// The surface term's raw sums `(e, ∂e/∂child, ∂e/∂parent)` (before `ALPHA_S`) of one bone,
/// keyed by the exact bits of its two end points.
type SurfaceEntry = ([u64; 6], (f64, V3, V3));

/// Recently evaluated surface terms, per bone. S is a pure function of the bone's two end
/// points and costs 10 field evaluations and nearest-sample queries, while refinement
/// re-evaluates it at unchanged ends most of the time (a bone's ends stay put while another
/// bone's line search runs, and the energy at the gradient's point is evaluated again as the
/// line search's start): a hit returns the very numbers a fresh evaluation would.
#[derive(Default)]
pub struct SurfaceCache {
    /// Per bone: ring of entries and the next slot to overwrite.
    bones: RefCell<Vec<(Vec<SurfaceEntry>, usize)>>,
}

impl SurfaceCache {
    fn key(qi: &P3, qp: &P3) -> [u64; 6] {
        let (a, b) = (qi.coords, qp.coords);
        [a.x, a.y, a.z, b.x, b.y, b.z].map(f64::to_bits)
    }

    /// The cached sums of bone `bi` at `(qi, qp)`, or `compute()` stored for next time.
    fn get_or(
        &self,
        bi: usize,
        qi: &P3,
        qp: &P3,
        compute: impl FnOnce() -> (f64, V3, V3),
    ) -> (f64, V3, V3) {
        let key = Self::key(qi, qp);
        if let Some((ring, _)) = self.bones.borrow().get(bi) {
            if let Some((_, v)) = ring.iter().find(|(k, _)| *k == key) {
                return *v;
            }
        }
        let v = compute();
        let mut bones = self.bones.borrow_mut();
        if bones.len() <= bi {
            bones.resize_with(bi + 1, Default::default);
        }
        let (ring, next) = &mut bones[bi];
        if ring.len() < CACHE_SLOTS {
            ring.push((key, v));
        } else {
            ring[*next] = (key, v);
            *next = (*next + 1) % CACHE_SLOTS;
        }
        v
    }
}

impl Problem<'_> {
    /// Surface term of bone `bi` (ends `qi`, `qp`) and its gradient w.r.t. (child, parent).
    fn surface(&self, bi: usize, qi: &P3, qp: &P3, grad: Option<(&mut V3, &mut V3)>) -> f64 {
        let (e, gi, gp) = self.cache.get_or(bi, qi, qp, || self.surface_sums(qi, qp));
        if let Some((a, b)) = grad {
            *a += gi * ALPHA_S;
            *b += gp * ALPHA_S;
        }
        e * ALPHA_S
    }

    /// The surface term's sums over the bone's sample points, before the weight `ALPHA_S`.
    fn surface_sums(&self, qi: &P3, qp: &P3) -> (f64, V3, V3) {
        let mut e = 0.0;
        let (mut gi, mut gp) = (V3::zeros(), V3::zeros());
        let n = SURFACE_SAMPLES as f64;
        for k in 0..SURFACE_SAMPLES {
            let t = k as f64 / n;
            let c = P3::from(qi.coords * (1.0 - t) + qp.coords * t);
            let depth = -self.field.eval(&c);
            let cap = SURFACE_FLOOR + (SURFACE_DEPTH - depth).max(0.0);
            // pen ≤ cap², so deep points (cap ≤ SURFACE_IGNORED) never count: skip the query.
            if cap <= SURFACE_IGNORED {
                continue;
            }
            // Deviation from the original: a point outside the surface always pays the full cap (its
            // nearest medial sample can be close across a gap, e.g. between the thighs), with the
            // field's gradient pushing it back in.
            let near = if depth < 0.0 {
                None
            } else {
                self.medial.nearest_within(&c, cap)
            };
            let (pen, g) = match near {
                Some((m, d)) if d < cap => (d * d, 2.0 * (c - m)),
                _ if depth < SURFACE_DEPTH => (cap * cap, 2.0 * cap * self.field.gradient(&c)),
                _ => (cap * cap, V3::zeros()),
            };
            if pen > SURFACE_IGNORED * SURFACE_IGNORED {
                e += pen / n;
                gi += g * ((1.0 - t) / n);
                gp += g * (t / n);
            }
        }
        (e, gi, gp)
    }

    /// `α_L·L + α_O·A + Y` of bone `bi` (cheap, closed form).
    fn cheap(&self, bi: usize, q: &[P3]) -> f64 {
        let b = &self.bones[bi];
        let d = q[b.child] - q[b.parent];
        let bb = b.vec.norm_squared();
        let proj = d.dot(&b.vec).max(PROJ_MIN);
        let dist_sq = proj * proj / bb.max(1e-300);
        let l = ((LENGTH_EPS + bb) / (LENGTH_EPS + dist_sq)).max(LENGTH_MIN);
        let mut a = 0.0;
        if dist_sq > 1e-16 {
            let dot = unit(d).dot(&unit(b.vec)).clamp(-1.0, 1.0);
            let ang = if dot >= 1.0 - 1e-8 { 0.0 } else { dot.acos() };
            a = (ORIENT_BASE + ORIENT_SLOPE * ang).powi(3);
            if dot < 0.0 {
                a *= BACKWARD_FACTOR;
            }
        }
        let mut y = 0.0;
        if let Some(s) = b.sym {
            let sb = &self.bones[s];
            let s_dist_sq = (q[sb.child] - q[sb.parent]).norm_squared();
            y = (dist_sq / (SYM_EPS + s_dist_sq))
                .max(s_dist_sq / (SYM_EPS + dist_sq))
                .max(SYM_MIN);
        }
        ALPHA_L * l + ALPHA_O * a + y
    }

    /// Energy of bone `bi`, accumulating its gradient into `grad` if given.
    fn bone_energy(&self, bi: usize, q: &[P3], grad: Option<&mut [V3]>) -> f64 {
        let b = &self.bones[bi];
        let Some(grad) = grad else {
            return self.surface(bi, &q[b.child], &q[b.parent], None) + self.cheap(bi, q);
        };
        let (mut gi, mut gp) = (V3::zeros(), V3::zeros());
        let e = self.surface(bi, &q[b.child], &q[b.parent], Some((&mut gi, &mut gp)))
            + self.cheap(bi, q);
        grad[b.child] += gi;
        grad[b.parent] += gp;
        let mut joints = vec![b.child, b.parent];
        if let Some(s) = b.sym {
            joints.extend([self.bones[s].child, self.bones[s].parent]);
        }
        let h = FD_STEP;
        let mut qq = q.to_vec();
        for &j in &joints {
            for a in 0..3 {
                let x = qq[j][a];
                qq[j][a] = x + h;
                let ep = self.cheap(bi, &qq);
                qq[j][a] = x - h;
                let em = self.cheap(bi, &qq);
                qq[j][a] = x;
                grad[j][a] += (ep - em) / (2.0 * h);
            }
        }
        e
    }

    /// Total energy.
    pub fn energy(&self, q: &[P3]) -> f64 {
        (0..self.bones.len())
            .map(|b| self.bone_energy(b, q, None))
            .sum()
    }

    fn project(&self, q: &mut [P3]) {
        for (j, c, r) in &self.pins {
            if let Some(p) = q.get_mut(*j) {
                let d = *p - c;
                if d.norm() > *r {
                    *p = c + d * (*r / d.norm());
                }
            }
        }
    }

    /// Doubling line search along `dir` over the joints in `moving`; `energy` evaluates the part of the
    /// energy that can change. Returns the new energy.
    fn line_search(
        &self,
        q: &mut [P3],
        dir: &[V3],
        moving: &[usize],
        e0: f64,
        energy: &dyn Fn(&[P3]) -> f64,
    ) -> f64 {
        let norm2: f64 = moving.iter().map(|j| dir[*j].norm_squared()).sum();
        if norm2 <= 0.0 || !norm2.is_finite() {
            return e0;
        }
        let mut step = STEP0 / (STEP_EPS + norm2).sqrt();
        let (mut total, mut best) = (0.0, e0);
        let base: Vec<P3> = moving.iter().map(|j| q[*j]).collect();
        for _ in 0..MAX_DOUBLINGS {
            let t = total + step;
            for (k, j) in moving.iter().enumerate() {
                q[*j] = base[k] + dir[*j] * t;
            }
            self.project(q);
            let e = energy(q);
            if e < best {
                best = e;
                total = t;
                step *= 2.0;
            } else {
                break;
            }
        }
        for (k, j) in moving.iter().enumerate() {
            q[*j] = base[k] + dir[*j] * total;
        }
        self.project(q);
        best
    }

    /// Run the original's schedule from `q` (one position per joint). Returns the final energy.
    pub fn refine(&self, q: &mut [P3], outer: usize) -> f64 {
        self.project(q);
        let all: Vec<usize> = (0..q.len()).collect();
        // Bones whose energy changes when bone b's endpoints move (shared joints, mirror links).
        let touching: Vec<Vec<usize>> = self
            .bones
            .iter()
            .map(|b| {
                (0..self.bones.len())
                    .filter(|&o| {
                        let ob = &self.bones[o];
                        let mut js = vec![ob.child, ob.parent];
                        if let Some(s) = ob.sym {
                            js.extend([self.bones[s].child, self.bones[s].parent]);
                        }
                        js.contains(&b.child) || js.contains(&b.parent)
                    })
                    .collect()
            })
            .collect();
        let mut e = self.energy(q);
        for _ in 0..outer {
            let e_start = e;
            for _ in 0..FULL_SEARCHES {
                let mut g = vec![V3::zeros(); q.len()];
                for b in 0..self.bones.len() {
                    self.bone_energy(b, q, Some(&mut g));
                }
                let dir: Vec<V3> = g.iter().map(|v| -v).collect();
                e = self.line_search(q, &dir, &all, e, &|x| self.energy(x));
            }
            for (bi, b) in self.bones.iter().enumerate() {
                let local = |x: &[P3]| {
                    touching[bi]
                        .iter()
                        .map(|o| self.bone_energy(*o, x, None))
                        .sum::<f64>()
                };
                let mut g = vec![V3::zeros(); q.len()];
                for o in &touching[bi] {
                    self.bone_energy(*o, q, Some(&mut g));
                }
                let dir: Vec<V3> = g.iter().map(|v| -v).collect();
                let l0 = local(q);
                let l1 = self.line_search(q, &dir, &[b.child, b.parent], l0, &local);
                e += l1 - l0;
            }
            // The original has no convergence test; stopping once an iteration gains almost nothing
            // keeps the result and saves most of the time on well-embedded skeletons.
            if e_start - e < 1e-4 * e_start.abs().max(1e-9) {
                break;
            }
        }
        e
    }
}
