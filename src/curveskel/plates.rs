//! Robust mode's plate removal: a leaf branch that is a flat plate (a fin, an ear, a wing
//! membrane) seen edge-on in the secondary depth is cut from the axis, and a limb ending in a plate
//! ends where the plate starts. Not in the paper (no pruning is, see [`super::prune`]); the
//! raster's depth range at a node gives the thickness the outline alone cannot show.

use super::prune::{Pruned, Tree};
use super::raster::Raster;

/// Robust mode: a leaf branch whose thickness along the view is below this fraction of its width
/// (median over its nodes) is a plate (a fin, an ear, a wing membrane): it gets no bones of its
/// own and its surface follows the branch it grows from (a flat part bends with its carrier).
pub const PLATE_RATIO: f64 = 0.25;

impl Tree {
    /// Robust mode: cut leaf branches that are flat plates ([`PLATE_RATIO`]), thinnest first, one
    /// per junction per round; returns what was removed.
    pub fn prune_plates(&mut self, r: &Raster) -> Vec<Pruned> {
        let mut out = Vec::new();
        loop {
            let mut worst: std::collections::BTreeMap<usize, (f64, Vec<usize>)> =
                Default::default();
            for path in self.leaf_chains() {
                let j = *path.last().expect("non-empty");
                let ratios: Vec<f64> = path[..path.len() - 1]
                    .iter()
                    .filter_map(|&k| self.flatness(r, k))
                    .collect();
                if ratios.is_empty() {
                    continue;
                }
                let median = upper_median(&ratios);
                if median < PLATE_RATIO && worst.get(&j).is_none_or(|w| median < w.0) {
                    worst.insert(j, (median, path));
                }
            }
            if worst.is_empty() {
                self.trim_plate_tips(r);
                return out;
            }
            for (_, path) in worst.into_values() {
                let (t, j) = (
                    self.nodes[path[0]],
                    self.nodes[*path.last().expect("non-empty")],
                );
                let protrusion =
                    ((t.pos.x - j.pos.x).powi(2) + (t.pos.y - j.pos.y).powi(2)).sqrt() - j.r;
                out.push(Pruned {
                    tip: t.pos,
                    protrusion: -protrusion.abs(),
                });
                self.cut(&path);
            }
        }
    }

    /// Thickness over width at node `k` (None where the raster has no depth).
    fn flatness(&self, r: &Raster, k: usize) -> Option<f64> {
        let n = self.nodes[k];
        let (u, v) = r.to_px(n.pos.x, n.pos.y);
        r.depth_range(u, v)
            .map(|(lo, hi)| (hi - lo) / (2.0 * n.r).max(1e-12))
    }

    /// A leaf branch that ends in a plate (a tail fin after its other lobe was cut) ends where the
    /// plate starts: the longest tip-side part whose median flatness is a plate's, ending on a flat
    /// node. A median, not every node, because the tip's own node sits where the plate is about a
    /// pixel wide and its thickness/width ratio is noise.
    ///
    /// A single-branch creature (a fish) has no junction: its chain runs leaf to leaf, and each end
    /// may trim at most half of it.
    fn trim_plate_tips(&mut self, r: &Raster) {
        let leaves: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].alive && self.deg(i) == 1)
            .collect();
        for leaf in leaves {
            if !(self.nodes[leaf].alive && self.deg(leaf) == 1) {
                continue;
            }
            let path = self.walk(leaf, *self.adj[leaf].iter().next().expect("degree 1"));
            let end = *path.last().expect("non-empty");
            let limit = if self.deg(end) == 1 {
                path.len() / 2
            } else {
                path.len().saturating_sub(2)
            };
            let inner = &path[..limit];
            let flat: Vec<Option<f64>> = inner.iter().map(|&k| self.flatness(r, k)).collect();
            let mut cut_to = 0;
            let mut seen: Vec<f64> = Vec::new();
            for (k, f) in flat.iter().enumerate() {
                if let Some(f) = *f {
                    seen.push(f);
                }
                if seen.is_empty() || !f.is_some_and(|f| f < PLATE_RATIO) {
                    continue;
                }
                if upper_median(&seen) < PLATE_RATIO {
                    cut_to = k + 1;
                }
            }
            if cut_to > 0 {
                let mut cut: Vec<usize> = path[..cut_to].to_vec();
                cut.push(path[cut_to]);
                self.cut(&cut);
            }
        }
    }
}

/// The upper median of `values` (non-empty): the middle one, or the larger of the two middle ones.
fn upper_median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}
