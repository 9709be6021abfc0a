//! The generalized winding number split by shell (issue 16; docs/algorithms.md#distance-field).
//!
//! The winding number is a sum over triangles, so it is the sum of every edge-connected shell's
//! own winding number. A closed shell (every directed edge used once, its reverse once)
//! contributes an exact integer: 0 outside its bounding box, else its signed ray crossings
//! ([`super::ray`], right also where the shell passes through itself). Only the remaining (open)
//! shells pay for the fast dipole sum of Barill et al. 2018, over a tree of their own triangles.
//! An armoured character whose plates weld into closed shells then needs a ray per shell instead
//! of a sum over every triangle, and the closed shells' part is exact instead of the dipole sum's
//! approximation of it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rayon::prelude::*;

mod boxes;
use boxes::BoxTree;

use super::bvh::Bvh;
use super::octree::KeyHasher;
use super::ray;
use super::winding::{
    dipoles, directed_edges, edge, solid_angle, winding_number, winding_number_bounded, Dipole,
    WindingClass,
};
use crate::geom::{P3, V3};

/// A closed shell: its tree and bounding box.
#[derive(Clone, Debug)]
struct Closed {
    bvh: Bvh,
    lo: V3,
    hi: V3,
}

/// The triangles that are not in a closed outward shell, with their dipoles.
#[derive(Clone, Debug)]
struct Open {
    bvh: Bvh,
    dipoles: Vec<Dipole>,
}

/// A mesh's triangles split into closed outward shells and the rest (see the module docs).
#[derive(Clone, Debug)]
pub struct Shells {
    closed: Vec<Closed>,
    /// The closed shells' boxes, for the queries to visit only those holding the point.
    boxes: BoxTree,
    open: Option<Open>,
    /// Set by [`super::winding::SignSetup`] when these triangles are one watertight outward
    /// shell that intersects itself ([`super::selfx`]): why the winding sign was chosen.
    pub(super) self_intersecting: bool,
}

impl Shells {
    /// Split `triangles` (indices into `positions`, normalized frame) by edge-connected shell.
    pub fn new(positions: &[P3], triangles: &[[u32; 3]]) -> Self {
        // Each shell's test and tree on its own task (an armoured character has dozens); the
        // indexed collect keeps the shells in order, so the result is the serial loop's.
        let parts: Vec<(Vec<[u32; 3]>, Option<Closed>)> = components(triangles)
            .into_par_iter()
            .map(|shell| {
                let tris: Vec<[u32; 3]> = shell.iter().map(|&t| triangles[t as usize]).collect();
                let c = Closed::new(positions, &tris);
                (tris, c)
            })
            .collect();
        let mut closed = Vec::new();
        let mut open_tris = Vec::new();
        for (tris, c) in parts {
            match c {
                Some(c) => closed.push(c),
                None => open_tris.extend(tris),
            }
        }
        let open = (!open_tris.is_empty()).then(|| {
            let bvh = Bvh::build(positions, &open_tris);
            let dipoles = dipoles(&bvh);
            Open { bvh, dipoles }
        });
        let boxes = BoxTree::new(&closed.iter().map(|c| (c.lo, c.hi)).collect::<Vec<_>>());
        Self {
            closed,
            boxes,
            open,
            self_intersecting: false,
        }
    }

    /// The closed shells' part of the winding number at `p`: the sum of their exact integers
    /// over the shells whose box holds `p` (the others add 0).
    fn closed_winding(&self, p: &V3) -> i64 {
        let mut sum = 0i64;
        self.boxes.visit(p, |s| sum += self.closed[s].winding(p));
        sum
    }

    /// Closed outward shells and triangles left to the dipole sum (for tests and logs).
    pub fn counts(&self) -> (usize, usize) {
        let open = self.open.as_ref().map_or(0, |o| o.bvh.tris.len());
        (self.closed.len(), open)
    }

    /// Generalized winding number at `p`: the closed shells' exact integers plus the dipole sum
    /// over the other triangles.
    pub fn winding(&self, p: &V3) -> f64 {
        let closed = self.closed_winding(p);
        let open = self
            .open
            .as_ref()
            .map_or(0.0, |o| winding_number(&o.bvh, &o.dipoles, p));
        closed as f64 + open
    }

    /// `WindingClass::of(self.winding(p))`: from the fast dipole sum when its error bound
    /// settles the class, else from the exact sum ([`WindingClass::certain`]).
    pub fn class(&self, p: &V3) -> WindingClass {
        let (w, err) = self.winding_bounded(p);
        WindingClass::certain(w, err).unwrap_or_else(|| WindingClass::of(self.winding(p)))
    }

    /// [`Self::winding`] computed with the fast `atan2` ([`winding_number_bounded`]), and a
    /// bound on its distance to [`Self::winding`]'s value.
    pub fn winding_bounded(&self, p: &V3) -> (f64, f64) {
        let closed = self.closed_winding(p);
        let Some(o) = &self.open else {
            return (closed as f64, 0.0);
        };
        let (open, err) = winding_number_bounded(&o.bvh, &o.dipoles, p);
        let w = closed as f64 + open;
        // The sum with the closed integer rounds once more (relative ε of each side, doubled).
        (w, err + 2.0 * f64::EPSILON * (w.abs() + open.abs() + err))
    }
}

impl Closed {
    /// The shell of `tris` if it is closed (every directed edge once, its reverse once).
    fn new(positions: &[P3], tris: &[[u32; 3]]) -> Option<Self> {
        let directed = directed_edges(tris)?;
        if !tris
            .iter()
            .all(|t| (0..3).all(|k| directed.contains_key(&edge(t[(k + 1) % 3], t[k]))))
        {
            return None;
        }
        let bvh = Bvh::build(positions, tris);
        let (mut lo, mut hi) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY));
        for t in &bvh.tris {
            for v in &t.v {
                lo = lo.inf(v);
                hi = hi.sup(v);
            }
        }
        Some(Self { bvh, lo, hi })
    }

    /// The shell's winding number at `p`: 0 outside its bounding box (a closed surface's
    /// winding number is 0 outside its convex hull), else its signed ray crossings.
    fn winding(&self, p: &V3) -> i64 {
        if (0..3).any(|a| p[a] < self.lo[a] || p[a] > self.hi[a]) {
            return 0;
        }
        ray::crossings(&self.bvh, p, &self.lo, &self.hi).unwrap_or_else(|| self.brute_force(p))
    }

    /// Σ exact solid angles / 4π, rounded: only for a point on (or within rounding of) the
    /// surface, where no ray decides.
    fn brute_force(&self, p: &V3) -> i64 {
        let omega: f64 = self.bvh.tris.iter().map(|t| solid_angle(p, &t.v)).sum();
        (omega / (4.0 * std::f64::consts::PI)).round() as i64
    }
}

/// Edge-connected components of `triangles` (triangle indices, in order of first triangle).
fn components(triangles: &[[u32; 3]]) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..triangles.len() as u32).collect();
    let mut first: HashMap<u64, u32, BuildHasherDefault<KeyHasher>> =
        HashMap::with_capacity_and_hasher(triangles.len() * 2, Default::default());
    for (ti, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let key = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
            let other = *first.entry(key).or_insert(ti as u32);
            super::winding::union(&mut parent, ti as u32, other);
        }
    }
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for ti in 0..triangles.len() as u32 {
        let root = super::winding::find(&mut parent, ti);
        let slot = *index.entry(root).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[slot].push(ti);
    }
    out
}
