//! The 9 discrete penalty terms (Baran & Popović 2007 §3.3; docs/algorithms.md#penalty-terms), weighted by Γ, with the original's per-term veto.
//!
//! Terms are evaluated when reduced joint `idx` (search order) is placed at graph vertex `next`, given
//! the partial match `m` (one vertex per earlier reduced joint) and the set of `taken` vertices (those on
//! the paths of chains already placed, endpoints included). Positions are the sphere centres rotated
//! into the template frame (+Y up, facing +Z).
//!
//! One addition to the original: `shared_path` also counts **bridge edges** (edges the graph added only
//! to connect separate parts of a multi-part mesh): each one on the chain's path adds
//! [`BRIDGE_COST`], so chains avoid leaving the volume when another route exists.

use super::paths::{Paths, NONE};
use super::pins::{path_meets, ChainHint, PathPin};
use super::reduced::Reduced;
use super::Orientation;
use crate::discretize::SphereGraph;
use crate::geom::V3;

/// A veto (the original's `NOMATCH` or a weighted term above 1).
pub const VETO: f64 = 2.0;
/// Unweighted shared-path cost per bridge edge on a chain's path.
pub const BRIDGE_COST: f64 = 1.0;

// The shapes of the terms below are the original code's (docs/algorithms.md#penalty-terms); the
// thresholds that decide a veto or a penalty are named here.
/// A chain's graph length is measured with this fraction of its end spheres' radii added (the
/// ends may sit anywhere inside their spheres).
const PLAY: f64 = 0.7;
/// A shared-path vertex this thin (normalized radius) cannot carry two chains: veto.
const THIN_SHARED: f64 = 0.02;
/// A limb end "could continue" when a neighbour lies this straight on from the parent …
const EXTREM_FROM_PARENT: f64 = 0.95;
/// … and this straight on from the end itself (direction dot products).
const EXTREM_FROM_END: f64 = 0.8;
/// Paths are "not disjoint" when the detour through the common ancestor exceeds the direct
/// distance by this factor.
const DISJOINT_RATIO: f64 = 2.0;

/// Everything the terms need for one orientation.
#[derive(Clone, Debug)]
pub struct Ctx<'a> {
    /// Reduced skeleton, search order.
    pub red: &'a Reduced,
    /// Shortest paths.
    pub paths: &'a Paths,
    /// Sphere centres, template frame (rotated), one per graph vertex.
    pub pos: Vec<V3>,
    /// Sphere radii.
    pub rad: Vec<f64>,
    /// Graph neighbours.
    pub nbrs: Vec<Vec<u32>>,
    /// `min(1, min_v y(v))`, the ground for FootPF.
    pub foot_base: f64,
    /// Γ.
    pub weights: [f64; 9],
    /// Candidate vertices per reduced joint.
    pub cand: Vec<Vec<u32>>,
    /// Lowest common ancestor of reduced joints `i`, `j` at `lca[i * k + j]`.
    lca: Vec<usize>,
    /// Cache of [`Ctx::pair_terms`] keyed by (joint, parent vertex, vertex); NaN marks a veto.
    pairs: std::cell::RefCell<std::collections::HashMap<u64, [f64; 2]>>,
    /// Hints on chains: a placement whose path misses one is vetoed (see [`super::pins`]).
    pins: Vec<PathPin>,
    /// Per reduced joint: its chain holds a pin. The pins then say where the limb is, so its length
    /// and its symmetry with its mirror are not penalized (nor vetoed).
    pinned: Vec<bool>,
}

/// Clamped linear ramp: `a` at `v ≤ lo`, `b` at `v ≥ hi` (the original's `smoothInterp`).
pub fn ramp(v: f64, lo: f64, a: f64, hi: f64, b: f64) -> f64 {
    if v <= lo {
        a
    } else if v >= hi {
        b
    } else {
        a + (v - lo) / (hi - lo) * (b - a)
    }
}

fn unit(v: V3) -> V3 {
    let n = v.norm();
    if n > 0.0 {
        v / n
    } else {
        V3::zeros()
    }
}

/// Whether `v` is set in a taken bitset.
#[inline]
pub fn is_taken(taken: &[u64], v: u32) -> bool {
    taken
        .get(v as usize / 64)
        .is_some_and(|w| w & (1u64 << (v % 64)) != 0)
}

impl<'a> Ctx<'a> {
    /// The context for embedding `red` in `graph` seen through orientation `o`: sphere centres are
    /// moved to the template frame (centred on the unit cube, then rotated), so FootPF's "y" is the
    /// template's up; the graph is rotated, never the template.
    pub fn from_graph(
        red: &'a Reduced,
        paths: &'a Paths,
        graph: &SphereGraph,
        o: &Orientation,
        weights: [f64; 9],
        cand: Vec<Vec<u32>>,
    ) -> Self {
        let half = V3::new(0.5, 0.5, 0.5);
        let pos = graph
            .spheres
            .iter()
            .map(|s| o.apply(&(s.center.coords - half)))
            .collect();
        let rad = graph.spheres.iter().map(|s| s.radius).collect();
        let nbrs = (0..graph.len())
            .map(|i| {
                graph
                    .edges
                    .get(i)
                    .map_or(Vec::new(), |l| l.iter().map(|(n, _)| n.0).collect())
            })
            .collect();
        Self::new(red, paths, pos, rad, nbrs, weights, cand)
    }

    /// Build the context: `pos` are the template-frame centres, one per graph vertex.
    fn new(
        red: &'a Reduced,
        paths: &'a Paths,
        pos: Vec<V3>,
        rad: Vec<f64>,
        nbrs: Vec<Vec<u32>>,
        weights: [f64; 9],
        cand: Vec<Vec<u32>>,
    ) -> Self {
        let foot_base = pos.iter().map(|p| p.y).fold(1.0_f64, f64::min);
        let k = red.len();
        let mut lca = vec![0; k * k];
        for i in 0..k {
            for j in 0..k {
                let (mut a, mut b) = (i, j);
                while a != b {
                    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
                    a = red.joints[hi].parent.unwrap_or(0);
                    b = lo;
                }
                lca[i * k + j] = a;
            }
        }
        Self {
            red,
            paths,
            pos,
            rad,
            nbrs,
            foot_base,
            weights,
            cand,
            lca,
            pairs: Default::default(),
            pins: Vec::new(),
            pinned: vec![false; k],
        }
    }

    /// Add the hints that lie inside chains; `o` maps the normalized frame to the search frame.
    pub fn with_pins(mut self, hints: &[ChainHint], o: &crate::embed::Orientation) -> Self {
        let half = V3::new(0.5, 0.5, 0.5);
        self.pins = hints
            .iter()
            .map(|h| PathPin {
                idx: h.idx,
                fraction: h.fraction,
                at: o.apply(&(h.position.coords - half)),
                radius: h.radius,
                extend: h.extend,
            })
            .collect();
        for p in &self.pins {
            if let Some(slot) = self.pinned.get_mut(p.idx) {
                *slot = true;
            }
        }
        self
    }

    /// True unless the chain of `idx` placed from `pv` to `next` misses one of its pins.
    fn pins_met(&self, idx: usize, pv: u32, next: u32) -> bool {
        let mut pins = self.pins.iter().filter(|p| p.idx == idx).peekable();
        if pins.peek().is_none() {
            return true;
        }
        let mut verts = self.paths.path(next, pv);
        verts.reverse();
        let path: Vec<V3> = verts.iter().map(|v| self.pos[*v as usize]).collect();
        let radii: Vec<f64> = verts.iter().map(|v| self.rad[*v as usize]).collect();
        pins.all(|p| path_meets(&path, &radii, p))
    }

    /// Weighted terms for placing `idx` at `next`; `None` on a veto. In `relaxed` mode a veto condition
    /// costs 1 (weighted) on its term instead, and no term vetoes; only unreachable vertices fail.
    pub fn terms(
        &self,
        m: &[u32],
        taken: &[u64],
        idx: usize,
        next: u32,
        relaxed: bool,
    ) -> Option<[f64; 9]> {
        let mut t = self.basis(m, taken, idx, next)?;
        for (k, v) in t.iter_mut().enumerate() {
            // A zero weight switches a term off entirely, veto included.
            let w = if self.weights[k] == 0.0 {
                0.0
            } else {
                self.weights[k] * *v
            };
            *v = if w.is_finite() && w <= 1.0 {
                w
            } else if relaxed {
                1.0
            } else {
                return None;
            };
        }
        Some(t)
    }

    /// The 9 **unweighted** basis values b (Baran & Popović 2007 §3.3: the penalty is Γᵀb) of
    /// placing `idx` at `next`; a hard veto (the original's `NOMATCH`) is `+∞` on its term. `None`
    /// only when `next` is unreachable or out of range. Γ never enters: these are what
    /// `crate::learn` stores and learns from.
    pub fn basis(&self, m: &[u32], taken: &[u64], idx: usize, next: u32) -> Option<[f64; 9]> {
        let mut t = [0.0; 9];
        let Some(prev) = self.red.joints.get(idx)?.parent else {
            return Some(t);
        };
        let pv = *m.get(prev)?;
        let nu = next as usize;
        if nu >= self.pos.len() {
            return None;
        }
        let hard = f64::INFINITY;
        // A chain that misses a pin inside it vetoes (relaxed: costs 1) on the length term.
        t[0] = if self.pins_met(idx, pv, next) {
            self.dist_term(idx, pv, next).unwrap_or(hard)
        } else {
            hard
        };
        t[1] = self.global_dot(m, idx, prev, next).unwrap_or(hard);
        t[2] = self.sym_term(m, idx, pv, next);
        t[3] = self.double_term(taken, pv, next).unwrap_or(hard);
        let rj = &self.red.joints[idx];
        if rj.foot {
            t[4] = self.pos[nu].y - self.foot_base;
        }
        t[5] = if next == pv { 1.0 } else { 0.0 };
        t[6] = self.dot_term(idx, pv, next);
        t[7] = self.extrem_term(idx, pv, next);
        t[8] = self.disjoint_term(m, idx, prev, next);
        if !self.paths.dist(next, pv).is_finite() {
            return None;
        }
        Some(t)
    }

    /// Total penalty, [`VETO`] on a veto (strict mode). Equal to the sum of [`Ctx::terms`], but the
    /// terms that depend only on (`idx`, parent vertex, `next`) — length, the parent's global
    /// direction, foot, zero length, local direction, mid-limb end — are computed once and cached:
    /// the lower bound re-evaluates the same pairs for every child of every expanded node.
    pub fn penalty(&self, m: &[u32], taken: &[u64], idx: usize, next: u32) -> f64 {
        let Some(prev) = self.red.joints.get(idx).and_then(|r| r.parent) else {
            return 0.0;
        };
        let Some(&pv) = m.get(prev) else { return VETO };
        let key = ((idx as u64) << 48) | (u64::from(pv) << 24) | u64::from(next);
        let pair = {
            let cached = self.pairs.borrow().get(&key).copied();
            match cached {
                Some(p) => p,
                None => {
                    let p = self.pair_terms(idx, pv, next).unwrap_or([f64::NAN; 2]);
                    self.pairs.borrow_mut().insert(key, p);
                    p
                }
            }
        };
        if pair[0].is_nan() {
            return VETO;
        }
        let w = &self.weights;
        let check = |k: usize, v: Option<f64>| -> Option<f64> {
            let x = if w[k] == 0.0 { 0.0 } else { w[k] * v? };
            (x.is_finite() && x <= 1.0).then_some(x)
        };
        let rest = (|| {
            let gd = check(
                1,
                Some(pair[1] + self.global_dot_part(m, idx, prev, next, false)?),
            )?;
            let sym = check(2, Some(self.sym_term(m, idx, pv, next)))?;
            let dbl = check(3, self.double_term(taken, pv, next))?;
            let dis = check(8, Some(self.disjoint_term(m, idx, prev, next)))?;
            Some(gd + sym + dbl + dis)
        })();
        rest.map_or(VETO, |r| pair[0] + r)
    }

    /// `[weighted sum of length, foot, zero length, direction, mid-limb end; unweighted parent part of
    /// global direction]`, or `None` on a veto of any of them.
    fn pair_terms(&self, idx: usize, pv: u32, next: u32) -> Option<[f64; 2]> {
        let nu = next as usize;
        if nu >= self.pos.len() || !self.paths.dist(next, pv).is_finite() {
            return None;
        }
        let rj = &self.red.joints[idx];
        let prev = rj.parent?;
        if !self.pins_met(idx, pv, next) {
            return None;
        }
        let mut m = vec![0; prev + 1];
        m[prev] = pv;
        let gd = self.global_dot_part(&m, idx, prev, next, true)?;
        if self.weights[1] * gd > 1.0 {
            return None;
        }
        let foot = if rj.foot {
            self.pos[nu].y - self.foot_base
        } else {
            0.0
        };
        let dup = if next == pv { 1.0 } else { 0.0 };
        let raw = [
            (0, self.dist_term(idx, pv, next)?),
            (4, foot),
            (5, dup),
            (6, self.dot_term(idx, pv, next)),
            (7, self.extrem_term(idx, pv, next)),
        ];
        let mut sum = 0.0;
        for (k, v) in raw {
            let x = if self.weights[k] == 0.0 {
                0.0
            } else {
                self.weights[k] * v
            };
            if !(x.is_finite() && x <= 1.0) {
                return None;
            }
            sum += x;
        }
        Some([sum, gd])
    }

    /// DistPF: chains embedded much shorter than the template cost more; below half the length vetoes.
    fn dist_term(&self, idx: usize, pv: u32, next: u32) -> Option<f64> {
        let d = self.paths.dist(next, pv);
        if self.pinned[idx] {
            return d.is_finite().then_some(0.0);
        }
        let play = PLAY * (self.rad[next as usize] + self.rad[pv as usize]);
        let opt = self.red.joints[idx].chain_len;
        if !d.is_finite() || d + play < 0.5 * opt {
            return None;
        }
        Some(ramp(opt / (d + play), 0.5, 0.0, 2.0, 3.0).powi(3))
    }

    /// GlobalDotPF: direction from the parent and from placed siblings vs the template.
    fn global_dot(&self, m: &[u32], idx: usize, prev: usize, next: u32) -> Option<f64> {
        Some(
            self.global_dot_part(m, idx, prev, next, true)?
                + self.global_dot_part(m, idx, prev, next, false)?,
        )
    }

    /// The parent (`parent = true`) or the siblings' part of GlobalDotPF.
    fn global_dot_part(
        &self,
        m: &[u32],
        idx: usize,
        prev: usize,
        next: u32,
        parent: bool,
    ) -> Option<f64> {
        let mut out = 0.0;
        let rj = &self.red.joints[idx];
        for (i, &mi) in m.iter().enumerate() {
            let sibling = i != prev && self.red.joints[i].parent == Some(prev);
            if (parent && i != prev) || (!parent && !sibling) || mi == next {
                continue;
            }
            let s = unit(rj.rest - self.red.joints[i].rest);
            let dot = unit(self.pos[next as usize] - self.pos[mi as usize]).dot(&s);
            if i == prev {
                if dot < 0.0 {
                    return None;
                }
                out += 0.5 * ((4.0 * (1.0 - dot)).powi(2) - 0.1).max(0.0);
            } else {
                if dot < -0.5 {
                    return None;
                }
                out += 0.5 * ((2.0 * (1.0 - dot)).powi(2) - 0.5).max(0.0);
            }
        }
        Some(out)
    }

    /// SymPF: this chain vs its already placed mirror partner.
    fn sym_term(&self, m: &[u32], idx: usize, pv: u32, next: u32) -> f64 {
        let Some(v1) = self.red.joints[idx].sym else {
            return 0.0;
        };
        if self.pinned[idx] || self.pinned[v1] {
            return 0.0;
        }
        let Some(v2) = self.red.joints[v1].parent else {
            return 0.0;
        };
        let (Some(&a), Some(&b)) = (m.get(v1), m.get(v2)) else {
            return 0.0;
        };
        let r = |v: u32| self.rad[v as usize];
        let dist = self.paths.dist(next, pv);
        let dist_c = dist + PLAY * (r(next) + r(pv));
        let s_dist = self.paths.dist(a, b);
        let s_dist_c = s_dist + PLAY * (r(a) + r(b));
        let noc = (dist / (s_dist + 1e-8))
            .max(s_dist / (dist + 1e-8))
            .min(2.0);
        let ratio = (s_dist / dist_c).max(dist / s_dist_c);
        ((0.2 * noc + 0.8 * ratio).powi(3) - 1.2).max(0.0)
    }

    /// DoublePF: the chain's path reuses vertices of earlier chains (plus bridge crossings).
    fn double_term(&self, taken: &[u64], pv: u32, next: u32) -> Option<f64> {
        let (mut sum, mut any) = (0.0, false);
        let (mut cur, mut i) = (next, 0usize);
        while cur != pv && cur != NONE && i <= self.pos.len() {
            if is_taken(taken, cur) {
                if self.rad[cur as usize] < THIN_SHARED {
                    return None;
                }
                sum += 0.5 / ((i + 1) * (i + 1)) as f64;
                any = true;
            }
            cur = self.paths.hop(cur, pv);
            i += 1;
        }
        let bridges = f64::from(self.paths.bridges_on(next, pv)) * BRIDGE_COST;
        Some(if any { sum + 0.5 } else { 0.0 } + bridges)
    }

    /// DotPF: each template bone's direction vs the matching piece of the split graph path.
    fn dot_term(&self, idx: usize, pv: u32, next: u32) -> f64 {
        if next == pv {
            return 0.0;
        }
        let rj = &self.red.joints[idx];
        let one = |s: &V3, d: V3| {
            let dot = unit(*s).dot(&unit(d));
            50.0 * s.norm_squared() * ((1.0 - dot) * ramp(dot, -0.5, 6.0, 0.0, 1.0)).powi(2)
        };
        if rj.bones.len() == 1 {
            return one(
                &rj.bones[0],
                self.pos[next as usize] - self.pos[pv as usize],
            );
        }
        let mut path: Vec<V3> = self
            .paths
            .path(next, pv)
            .iter()
            .map(|v| self.pos[*v as usize])
            .collect();
        path.reverse();
        let pts = split_polyline(&path, &rj.fractions);
        rj.bones
            .iter()
            .zip(pts.windows(2))
            .map(|(b, w)| one(b, w[1] - w[0]))
            .sum()
    }

    /// ExtremPF: a limb end with a graph neighbour further along the same direction ends mid-limb.
    fn extrem_term(&self, idx: usize, pv: u32, next: u32) -> f64 {
        if !self.red.joints[idx].leaf || next == pv {
            return 0.0;
        }
        let (x, xp) = (self.pos[next as usize], self.pos[pv as usize]);
        let d = unit(x - xp);
        let r = self.rad[next as usize];
        let beyond = self.nbrs[next as usize].iter().any(|&o| {
            let xo = self.pos[o as usize];
            r <= 2.0 * self.rad[o as usize]
                && unit(xo - xp).dot(&d) > EXTREM_FROM_PARENT
                && unit(xo - x).dot(&d) > EXTREM_FROM_END
        });
        if beyond {
            1.0
        } else {
            0.0
        }
    }

    /// DisjointPF: chains whose tree route is much longer than their direct graph distance touch.
    fn disjoint_term(&self, m: &[u32], idx: usize, prev: usize, next: u32) -> f64 {
        let k = self.red.len();
        let mut out = 0.0;
        for (i, &mi) in m.iter().enumerate() {
            if i == prev || i == idx {
                continue;
            }
            let Some(&ma) = self.lca.get(idx * k + i).and_then(|a| m.get(*a)) else {
                continue;
            };
            let s = self.rad[next as usize] + self.rad[mi as usize];
            let d = &self.paths;
            let ratio = (d.dist(next, ma) + d.dist(ma, mi) + s) / (d.dist(next, mi) + s);
            if ratio > DISJOINT_RATIO {
                out += 1.0;
            }
        }
        out
    }
}

/// Points at the cumulative length `fractions` (0 … 1) along a polyline (the `splitPaths` rule, docs/algorithms.md#split);
/// a zero-length polyline puts all of them on its first point.
pub fn split_polyline(path: &[V3], fractions: &[f64]) -> Vec<V3> {
    let Some(first) = path.first() else {
        return Vec::new();
    };
    let seg: Vec<f64> = path.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    let total: f64 = seg.iter().sum();
    let mut out = Vec::with_capacity(fractions.len());
    let (mut k, mut acc) = (0usize, 0.0);
    for f in fractions {
        let target = f.clamp(0.0, 1.0) * total;
        while k < seg.len() && acc + seg[k] < target {
            acc += seg[k];
            k += 1;
        }
        if k >= seg.len() || seg[k] <= 0.0 {
            out.push(*path.last().unwrap_or(first));
        } else {
            let t = ((target - acc) / seg[k]).clamp(0.0, 1.0);
            out.push(path[k] + (path[k + 1] - path[k]) * t);
        }
    }
    if total <= 0.0 {
        return vec![*first; fractions.len()];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discretize::{Sphere, SphereGraph};
    use crate::embed::reduced::Reduced;
    use crate::embed::{EmbedOptions, Orientation};
    use crate::geom::{NodeId, P3};
    use crate::skeleton::load::parse_template;
    use std::path::Path;

    fn graph(pts: &[(f64, f64)], edges: &[(usize, usize)]) -> SphereGraph {
        let mut g = SphereGraph::default();
        g.spheres = pts
            .iter()
            .map(|(x, y)| Sphere {
                center: P3::new(*x, *y, 0.5),
                radius: 0.05,
            })
            .collect();
        g.edges = vec![Vec::new(); pts.len()];
        for (a, b) in edges {
            let w = (g.spheres[*a].center - g.spheres[*b].center).norm();
            g.edges[*a].push((NodeId(*b as u32), w));
            g.edges[*b].push((NodeId(*a as u32), w));
        }
        g
    }

    fn ctx<'a>(red: &'a Reduced, paths: &'a Paths, g: &SphereGraph) -> Ctx<'a> {
        let all: Vec<u32> = (0..g.len() as u32).collect();
        Ctx::from_graph(
            red,
            paths,
            g,
            &Orientation::IDENTITY,
            EmbedOptions::default().weights,
            vec![all; red.len()],
        )
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }

    #[test]
    fn single_bone_terms_by_hand() {
        let text = "joints:\n  - { name: A, position: [0,0,0] }\n  - { name: B, parent: A, position: [0,1,0], foot: true }\n";
        let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
        let red = Reduced::new(&skel); // scale 0.56: chain length 0.56
        let g = graph(
            &[(0.5, 0.2), (0.5, 0.5), (0.5, 0.8), (0.8, 0.2)],
            &[(0, 1), (1, 2), (0, 3)],
        );
        let paths = Paths::new(&g);
        let c = ctx(&red, &paths, &g);
        let none = [0u64; 1];
        // B at the far end: length ratio 0.56 / (0.6 + 0.07) -> ramp 0.6716 -> cubed 0.3029.
        let t = c.terms(&[0], &none, 1, 2, false).unwrap();
        close(t[0], 0.027 * 0.302_92);
        close(t[1], 0.0); // straight up, as the template
        close(t[4], 0.014 * 0.6); // foot 0.6 above the lowest sphere
        close(t[6], 0.0);
        close(t[7], 0.0); // nothing beyond the end
                          // B halfway: shorter chain, and the end has a neighbour further along (mid-limb end).
        let t = c.terms(&[0], &none, 1, 1, false).unwrap();
        close(t[0], 0.027 * 2.0270_f64.powi(3));
        close(t[7], 0.005);
        // Sideways: global dot 0 -> 0.5 (16 - 0.1); local direction 50 |s|^2 = 15.68, weighted > 1: veto.
        assert!(c.terms(&[0], &none, 1, 3, false).is_none());
        assert_eq!(c.penalty(&[0], &none, 1, 3), VETO);
        let relaxed = c.terms(&[0], &none, 1, 3, true).unwrap();
        close(relaxed[1], 0.023 * 7.95);
        close(relaxed[6], 1.0);
    }

    #[test]
    fn symmetry_and_shared_path_by_hand() {
        let text = "joints:\n  - { name: R, position: [0,0,0] }\n  - { name: L1, parent: R, position: [-1,1,0] }\n  - { name: L2, parent: R, position: [1,1,0], symmetric: L1 }\n";
        let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
        let red = Reduced::new(&skel);
        assert_eq!(red.joints[2].sym, Some(1));
        let g = graph(
            &[(0.5, 0.5), (0.3, 0.7), (0.7, 0.7), (0.8, 0.8)],
            &[(0, 1), (0, 2), (2, 3)],
        );
        let paths = Paths::new(&g);
        let c = ctx(&red, &paths, &g);
        let mut taken = [0u64; 1];
        taken[0] |= 0b11; // the path of L1: v1 -> v0
        let t = c.terms(&[0, 1], &taken, 2, 3, false).unwrap();
        // dist 0.4243 (+0.07), partner 0.2828 (+0.07): noc 1.5, ratio 1.2026.
        let (d, s) = (0.2_f64.hypot(0.2) + 0.1_f64.hypot(0.1), 0.2_f64.hypot(0.2));
        let ratio = (s / (d + 0.07)).max(d / (s + 0.07));
        close(t[2], 0.007 * ((0.2 * (d / s) + 0.8 * ratio).powi(3) - 1.2));
        close(t[3], 0.0);
        close(t[8], 0.0);
        // L2 on top of L1: its path starts on a taken vertex -> 0.5 / 1 + 0.5.
        let t = c.terms(&[0, 1], &taken, 2, 1, true).unwrap();
        close(t[3], 0.046 * 1.0);
    }

    #[test]
    fn cached_penalty_equals_the_sum_of_terms() {
        let text = "joints:\n  - { name: R, position: [0,0,0] }\n  - { name: L1, parent: R, position: [-1,1,0] }\n  - { name: L2, parent: R, position: [1,1,0], symmetric: L1 }\n";
        let skel = parse_template(text, Path::new("t.yaml"), "t").unwrap();
        let red = Reduced::new(&skel);
        let g = graph(
            &[(0.5, 0.5), (0.3, 0.7), (0.7, 0.7), (0.8, 0.8)],
            &[(0, 1), (0, 2), (2, 3)],
        );
        let paths = Paths::new(&g);
        let c = ctx(&red, &paths, &g);
        let taken = [0b11u64];
        for next in 0..4 {
            for _ in 0..2 {
                let sum = c
                    .terms(&[0, 1], &taken, 2, next, false)
                    .map_or(VETO, |t| t.iter().sum());
                close(c.penalty(&[0, 1], &taken, 2, next), sum);
            }
        }
    }

    #[test]
    fn split_polyline_by_arc_length() {
        let p = [V3::zeros(), V3::new(1.0, 0.0, 0.0), V3::new(1.0, 1.0, 0.0)];
        let s = split_polyline(&p, &[0.0, 0.25, 0.75, 1.0]);
        assert!((s[1] - V3::new(0.5, 0.0, 0.0)).norm() < 1e-12);
        assert!((s[2] - V3::new(1.0, 0.5, 0.0)).norm() < 1e-12);
        assert!((s[3] - p[2]).norm() < 1e-12);
        assert_eq!(split_polyline(&[V3::zeros()], &[0.0, 0.5]).len(), 2);
    }
}
