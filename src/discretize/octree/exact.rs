//! Exact signed distances at the octree's lattice points, cached per build task, and the sign
//! anchors a point may inherit its sign from (split out of `octree.rs`; the build reads them
//! through [`super::Evaluate`]).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::super::bvh::{Bvh, Scratch};
use super::super::winding::{Sign, WindingClass};
use super::Evaluate;
use crate::geom::V3;

/// Initial entries of a task's distance cache (a level-2 subtree of a character evaluates a few
/// thousand lattice points): saves the first rounds of rehashing.
const CACHE_CAPACITY: usize = 4096;

/// Exact signed distances with a per-task cache keyed by lattice coordinates.
pub struct Exact<'a> {
    pub(super) bvh: &'a Bvh,
    /// The triangles left out of `bvh` (buried inside the solid), if any: the distance to all
    /// triangles is the smaller of the two trees' distances.
    pub(super) inner: Option<&'a Bvh>,
    pub(super) sign_bvh: &'a Bvh,
    pub(super) sign: &'a Sign,
    /// Normalized units per lattice unit.
    unit: f64,
    /// Per lattice key: signed distance, and the unsigned distance to *all* triangles (the sign's
    /// surface; differs from |value| only when internal triangles were culled from `bvh`).
    cache: HashMap<u64, (f64, f64), BuildHasherDefault<KeyHasher>>,
    hint_all: Option<u32>,
    hint: Option<u32>,
    /// The BVH traversal stack, reused by every query of the task.
    scratch: Scratch,
    /// Closest-point queries run (cache misses).
    pub queries: usize,
    /// Winding-number evaluations, shared by all tasks of one build.
    pub(super) windings: &'a AtomicUsize,
}

impl<'a> Exact<'a> {
    /// An evaluator for a lattice whose unit is `unit` normalized units: distances from `bvh`
    /// (outer triangles; `inner` holds the rest), sign from `sign` over `sign_bvh` (all
    /// triangles).
    pub fn new(
        bvh: &'a Bvh,
        inner: Option<&'a Bvh>,
        sign_bvh: &'a Bvh,
        sign: &'a Sign,
        unit: f64,
        windings: &'a AtomicUsize,
    ) -> Self {
        Self {
            bvh,
            inner,
            sign_bvh,
            sign,
            unit,
            cache: HashMap::with_capacity_and_hasher(CACHE_CAPACITY, Default::default()),
            hint: None,
            hint_all: None,
            scratch: Scratch::default(),
            queries: 0,
            windings,
        }
    }

    /// Signed distance at lattice point `k`. `known` is the sign when the caller already knows it
    /// (`Some(true)` = inside); otherwise it is inherited from an `anchor` (lattice point, exact
    /// signed value) when no surface can separate the two — their distance is less than either
    /// point's distance to the surface — and only then does the sign method run. The winding
    /// number costs far more than the closest-point query, so this saves most of the build time
    /// on open and multi-shell meshes. (It cannot cross a mesh triangle; it can cross the soft
    /// w = ½ cap over a hole, where either answer is as good.)
    pub fn value(&mut self, k: [u32; 3], known: Option<bool>, anchors: &[Anchor]) -> f64 {
        // One hash probe per point: the vacant slot is kept while the value is computed.
        let slot = match self.cache.entry(pack(k)) {
            Entry::Occupied(o) => return o.get().0,
            Entry::Vacant(slot) => slot,
        };
        let mut r = f64::INFINITY;
        let p = lattice_point(k, self.unit);
        self.queries += 1;
        let v = match self.bvh.closest_with(&p, self.hint, &mut self.scratch) {
            None => 1.0,
            Some(hit) => {
                self.hint = Some(hit.slot);
                let d = hit.dist2.sqrt();
                r = d;
                let inside = match known {
                    Some(s) => s,
                    None if self.sign.is_winding() => {
                        if let Some(inner) = self.inner {
                            // Only a buried triangle nearer than the outer hit changes r.
                            let all = inner.closest_below(
                                &p,
                                self.hint_all,
                                hit.dist2,
                                &mut self.scratch,
                            );
                            if let Some(h) = all {
                                self.hint_all = Some(h.slot);
                            }
                            r = all.map_or(d, |h| h.dist2.min(hit.dist2).sqrt());
                        }
                        match inherit(k, r, anchors, self.unit) {
                            Some(s) => s,
                            None => {
                                self.windings.fetch_add(1, Ordering::Relaxed);
                                let w = self.sign.class(&p).unwrap_or(WindingClass::of(0.0));
                                // Near the soft w = ½ cap over a hole the sign is no anchor:
                                // mark the point unusable for inheritance (r = −1).
                                if w.near_cap {
                                    r = -1.0;
                                }
                                // |w|, not w: an open shell's winding changes sign with its
                                // face orientation, and flipping faces must not change the rig.
                                w.inside
                            }
                        }
                    }
                    None => self.sign.inside(&p, &hit),
                };
                if inside {
                    -d
                } else {
                    d
                }
            }
        };
        slot.insert((v, r));
        v
    }

    /// The anchor for an already evaluated lattice point (None if not in this task's cache).
    fn anchor(&self, k: [u32; 3]) -> Option<Anchor> {
        match self.cache.get(&pack(k)) {
            Some(&(v, r)) if r >= 0.0 => Some(Anchor { k, v, r }),
            _ => None,
        }
    }
}

/// An evaluated lattice point whose sign nearby points may inherit.
#[derive(Clone, Copy, Debug)]
pub struct Anchor {
    k: [u32; 3],
    /// Signed distance.
    v: f64,
    /// Unsigned distance to all triangles.
    r: f64,
}

impl Anchor {
    /// An anchor at lattice point `k` with signed value `v` and unsigned distance `r` to all
    /// triangles (`r < 0`: not an anchor).
    pub fn new(k: [u32; 3], v: f64, r: f64) -> Option<Self> {
        (r >= 0.0).then_some(Self { k, v, r })
    }
}

/// Up to 9 anchors (a cell's corners and centre) without a heap allocation per tested cell.
pub struct Anchors {
    items: [Anchor; 9],
    len: usize,
}

impl Default for Anchors {
    fn default() -> Self {
        let none = Anchor {
            k: [0; 3],
            v: 0.0,
            r: -1.0,
        };
        Self {
            items: [none; 9],
            len: 0,
        }
    }
}

impl Anchors {
    /// Append `a` if it is an anchor (at most 9).
    pub(super) fn extend(&mut self, a: Option<Anchor>) {
        if let (Some(a), Some(slot)) = (a, self.items.get_mut(self.len)) {
            *slot = a;
            self.len += 1;
        }
    }

    /// The anchors in the order they were added.
    pub fn as_slice(&self) -> &[Anchor] {
        &self.items[..self.len]
    }
}

/// Sign of the first anchor that no surface separates from `k`: the segment between them is
/// shorter than one of the two points' distance to the (complete) surface.
pub fn inherit(k: [u32; 3], r: f64, anchors: &[Anchor], unit: f64) -> Option<bool> {
    anchors.iter().find_map(|a| {
        let gap = (0..3)
            .map(|i| (f64::from(a.k[i]) - f64::from(k[i])).powi(2))
            .sum::<f64>()
            .sqrt()
            * unit;
        (a.v != 0.0 && gap < a.r.max(r)).then_some(a.v < 0.0)
    })
}

/// The position (normalized units) of lattice point `k` on a lattice of `unit` normalized units.
#[inline]
pub fn lattice_point(k: [u32; 3], unit: f64) -> V3 {
    V3::new(f64::from(k[0]), f64::from(k[1]), f64::from(k[2])) * unit
}

pub fn pack(k: [u32; 3]) -> u64 {
    u64::from(k[0]) | (u64::from(k[1]) << 21) | (u64::from(k[2]) << 42)
}

impl Evaluate for Exact<'_> {
    fn value(&mut self, k: [u32; 3], known: Option<bool>, anchors: &[Anchor]) -> f64 {
        Exact::value(self, k, known, anchors)
    }
    fn anchor(&self, k: [u32; 3]) -> Option<Anchor> {
        Exact::anchor(self, k)
    }
    fn is_winding(&self) -> bool {
        self.sign.is_winding()
    }
}

/// A fast hasher for packed lattice keys (a multiplicative mix; keys are not adversarial).
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, k: u64) {
        let x = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}
