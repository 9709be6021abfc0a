//! A region frozen for a drag (facts §9.8): consecutive edits of the same joints watching the same
//! columns (a joint dragged step by step) solve on one region, widened by [`DRAG_RINGS`] rings
//! when the drag starts, as long as the rule's region (§3.2) stays inside it. The region then
//! repeats exactly, so its stiffness block and symbolic analysis come from the factorization cache
//! and only the numeric factorization is redone per step. Solving on a superset of the rule's
//! region only re-solves more vertices from the same frozen values; the choice depends on the
//! sequence of edits alone (session state, like the weights), never on timing or the cache. The
//! first step already solves the widened region, so the second step reuses its analysis.

use super::region::Adjacency;

/// Rings added around a drag's first region, so the next steps' regions (which shift by a few
/// vertices as the joint moves) still fit.
pub const DRAG_RINGS: usize = 2;

/// The frozen region of the current drag.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drag {
    /// Joints the edits are seeded at.
    pub seeds: Vec<usize>,
    /// Watched columns.
    pub watch: Vec<u32>,
    /// The frozen region (sorted welded vertices).
    pub region: Vec<u32>,
}

impl Drag {
    /// True if an edit seeded at `seeds` watching `watch` with rule region `rule` (sorted)
    /// continues this drag: same joints and columns, and `rule` fits in the frozen region.
    pub fn continues(&self, seeds: &[usize], watch: &[u32], rule: &[u32]) -> bool {
        self.seeds == seeds && self.watch == watch && is_subset(rule, &self.region)
    }

    /// A new drag on `region` (sorted) widened by [`DRAG_RINGS`] rings of `in_system` vertices.
    pub fn start(
        seeds: &[usize],
        watch: &[u32],
        region: &[u32],
        adj: &Adjacency,
        in_system: &dyn Fn(u32) -> bool,
    ) -> Drag {
        let mut inside = vec![false; adj.len()];
        for &v in region {
            inside[v as usize] = true;
        }
        let rings = super::region::outer_rings(adj, &inside, region, DRAG_RINGS);
        let mut out: Vec<u32> = region.to_vec();
        out.extend(rings.into_iter().filter(|&v| in_system(v)));
        out.sort_unstable();
        out.dedup();
        Drag {
            seeds: seeds.to_vec(),
            watch: watch.to_vec(),
            region: out,
        }
    }
}

/// True if every element of sorted `a` is in sorted `b`.
fn is_subset(a: &[u32], b: &[u32]) -> bool {
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_of_sorted_lists() {
        assert!(is_subset(&[2, 4], &[1, 2, 3, 4]));
        assert!(!is_subset(&[2, 5], &[1, 2, 3, 4]));
        assert!(is_subset(&[], &[1]));
    }
}
