//! One cell's split test as the lazy field runs it: the values [`octree::test_cell`] reads,
//! computed in the cell's own context only (its corners as given, its known-inside flag, its
//! corners and centre as sign anchors), so a cell's content never depends on which query or thread
//! built it first (see [`super`]).

use super::LazyField;
use crate::discretize::bvh::Scratch;
use crate::discretize::octree::{self, Anchor, Evaluate};

/// The values one cell's split test reads: its corners as given, other lattice points computed in
/// its own context (known flag, anchors = its corners and centre).
pub(super) struct CellEval<'a> {
    pub(super) f: &'a LazyField,
    /// Lattice point, signed value, anchor radius (negative: no anchor).
    pub(super) local: Vec<([u32; 3], f64, f64)>,
    /// The last evaluated point's closest triangle slot.
    pub(super) hint: Option<u32>,
    /// Traversal stack for this cell's closest-point queries.
    pub(super) scratch: Scratch,
}

impl CellEval<'_> {
    fn find(&self, k: [u32; 3]) -> Option<(f64, f64)> {
        self.local
            .iter()
            .find(|e| e.0 == k)
            .map(|&(_, v, r)| (v, r))
    }

    /// The anchor radius of `k` among this cell's points (-1: none, not one of them).
    pub(super) fn radius(&self, k: [u32; 3]) -> f64 {
        self.find(k).map_or(-1.0, |e| e.1)
    }
}

impl Evaluate for CellEval<'_> {
    fn value(&mut self, k: [u32; 3], known: Option<bool>, anchors: &[Anchor]) -> f64 {
        if let Some((v, _)) = self.find(k) {
            return v;
        }
        let p = self.f.point(k, self.hint, &mut self.scratch);
        self.hint = p.slot.or(self.hint);
        let (inside, r) = if self.f.all.is_empty() {
            (false, f64::INFINITY)
        } else {
            match known {
                Some(s) => (s, p.d),
                None if self.f.sign.is_winding() => {
                    let pr = self.f.radius(k, &p, &mut self.scratch);
                    match octree::inherit(k, pr, anchors, self.f.prm.unit) {
                        Some(s) => (s, pr),
                        None => {
                            let w = self.f.winding(k);
                            // Near the soft w = ½ cap over a hole: no anchor (as the full build).
                            let r = if w.near_cap { -1.0 } else { pr };
                            (w.inside, r)
                        }
                    }
                }
                None => (p.inside, p.d),
            }
        };
        let v = if inside { -p.d } else { p.d };
        self.local.push((k, v, r));
        v
    }

    fn anchor(&self, k: [u32; 3]) -> Option<Anchor> {
        let (v, r) = self.find(k)?;
        Anchor::new(k, v, r)
    }

    fn is_winding(&self) -> bool {
        self.f.sign.is_winding()
    }
}
