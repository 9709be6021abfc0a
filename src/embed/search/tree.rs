//! Bookkeeping of the search (Baran & Popović 2007 §3.4): the arena of partial matches with their
//! taken-vertex bitsets, the priority queue's order, and marking a chain's path as taken.

use std::cmp::Ordering;

use super::Ctx;

/// One partial match: the last joint's vertex, its parent node, depth (joints placed) and the
/// accumulated penalty.
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) vertex: u32,
    pub(super) depth: u16,
    pub(super) pen: f64,
}

/// Arena of partial matches; `taken` bitsets stored flat, `words` per node.
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    taken: Vec<u64>,
    words: usize,
}

impl Tree {
    pub(super) fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        Self {
            nodes: vec![Node {
                parent: 0,
                vertex: 0,
                depth: 0,
                pen: 0.0,
            }],
            taken: vec![0; words],
            words,
        }
    }

    pub(super) fn matched(&self, mut id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while id != 0 {
            let n = &self.nodes[id as usize];
            out.push(n.vertex);
            id = n.parent;
        }
        out.reverse();
        out
    }

    pub(super) fn taken(&self, id: u32) -> &[u64] {
        let s = id as usize * self.words;
        &self.taken[s..s + self.words]
    }

    pub(super) fn add(&mut self, parent: u32, vertex: u32, pen: f64, taken: &[u64]) -> u32 {
        let depth = self.nodes[parent as usize].depth + 1;
        self.nodes.push(Node {
            parent,
            vertex,
            depth,
            pen,
        });
        self.taken.extend_from_slice(taken);
        (self.nodes.len() - 1) as u32
    }
}

#[derive(PartialEq)]
pub(super) struct QItem(pub(super) f64, pub(super) u32);
impl Eq for QItem {}
impl Ord for QItem {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for QItem {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Mark the path `a → b` (both ends) in a bitset.
pub(super) fn mark_path(ctx: &Ctx, taken: &mut [u64], a: u32, b: u32) {
    for v in ctx.paths.path(a, b) {
        if let Some(w) = taken.get_mut(v as usize / 64) {
            *w |= 1u64 << (v % 64);
        }
    }
}
