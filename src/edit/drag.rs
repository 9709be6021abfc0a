//! A region frozen for a drag (facts §9.8): consecutive edits of the same joints watching the same
//! columns (a joint dragged step by step) solve on one region, widened by [`DRAG_RINGS`] rings
//! when the drag starts, as long as the rule's region (§3.2) stays inside it. The region then
//! repeats exactly, so its stiffness block and symbolic analysis come from the factorization cache
//! and only the numeric factorization is redone per step. Solving on a superset of the rule's
//! region only re-solves more vertices from the same frozen values; the choice depends on the
//! sequence of edits alone (session state, like the weights), never on timing or the cache.

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
    /// The region to solve for an edit seeded at `seeds` watching `watch` whose rule region is
    /// `rule` (sorted): the drag's region if the edit continues the drag and `rule` fits in it.
    pub fn region_for(
        drag: Option<&Drag>,
        seeds: &[usize],
        watch: &[u32],
        rule: &[u32],
    ) -> Vec<u32> {
        match drag {
            Some(d) if d.seeds == seeds && d.watch == watch && is_subset(rule, &d.region) => {
                d.region.clone()
            }
            _ => rule.to_vec(),
        }
    }

    /// The drag after an edit that solved `solved` (sorted): unchanged if it solved the drag's
    /// region, else a new drag on `solved` widened by [`DRAG_RINGS`] rings of `in_system`
    /// vertices.
    pub fn after(
        drag: Option<Drag>,
        seeds: &[usize],
        watch: &[u32],
        solved: &[u32],
        adj: &Adjacency,
        in_system: &dyn Fn(u32) -> bool,
    ) -> Drag {
        if let Some(d) = drag.filter(|d| d.seeds == seeds && d.watch == watch && d.region == solved)
        {
            return d;
        }
        let mut inside = vec![false; adj.len()];
        for &v in solved {
            inside[v as usize] = true;
        }
        let rings = super::region::outer_rings(adj, &inside, solved, DRAG_RINGS);
        let mut region: Vec<u32> = solved.to_vec();
        region.extend(rings.into_iter().filter(|&v| in_system(v)));
        region.sort_unstable();
        region.dedup();
        Drag {
            seeds: seeds.to_vec(),
            watch: watch.to_vec(),
            region,
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
