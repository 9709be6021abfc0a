//! A box tree over the closed shells' bounding boxes: a winding query visits only the shells
//! whose box holds the point (a robot or armour of hundreds of closed parts tested each one's
//! box per query, ~15 % of `attach` on the 403-part brainstem). The closed shells' part of the
//! winding number is an integer sum of the shells whose box holds the point (every other shell
//! adds 0), so which order they are visited in changes nothing.

use crate::geom::V3;

/// Shells per leaf.
const LEAF: usize = 4;

/// A node: the union of its shells' boxes; a leaf lists `order[first..first + count]`, an
/// internal node (`count == 0`) has children `first` and `first + 1`.
#[derive(Clone, Copy, Debug)]
struct Node {
    lo: V3,
    hi: V3,
    first: u32,
    count: u32,
}

/// The tree (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct BoxTree {
    nodes: Vec<Node>,
    order: Vec<u32>,
}

impl BoxTree {
    /// The tree over `boxes` (`(lo, hi)` per shell).
    pub(super) fn new(boxes: &[(V3, V3)]) -> Self {
        let mut t = Self {
            nodes: Vec::new(),
            order: (0..boxes.len() as u32).collect(),
        };
        if !boxes.is_empty() {
            t.nodes.push(leaf_over(boxes, &t.order, 0, boxes.len()));
            t.split(boxes, 0);
        }
        t
    }

    /// Split node `i` (a leaf over its range) at the median box centre along the longest
    /// axis of the centres, recursively, down to [`LEAF`] shells.
    fn split(&mut self, boxes: &[(V3, V3)], i: usize) {
        let Node { first, count, .. } = self.nodes[i];
        let (first, count) = (first as usize, count as usize);
        if count <= LEAF {
            return;
        }
        let centre = |s: u32| (boxes[s as usize].0 + boxes[s as usize].1) * 0.5;
        let range = &mut self.order[first..first + count];
        let (mut lo, mut hi) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY));
        for &s in range.iter() {
            lo = lo.inf(&centre(s));
            hi = hi.sup(&centre(s));
        }
        let axis = (hi - lo).imax();
        range.sort_by(|&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]).then(a.cmp(&b)));
        let half = count / 2;
        let left = self.nodes.len();
        let (l, r) = (
            leaf_over(boxes, &self.order, first, half),
            leaf_over(boxes, &self.order, first + half, count - half),
        );
        self.nodes.extend([l, r]);
        self.nodes[i].first = left as u32;
        self.nodes[i].count = 0;
        self.split(boxes, left);
        self.split(boxes, left + 1);
    }

    /// Call `f` with every shell whose box may hold `p` (every shell whose box holds it, with
    /// the same comparisons as the shells' own test, and perhaps a few others).
    pub(super) fn visit(&self, p: &V3, mut f: impl FnMut(usize)) {
        if self.nodes.is_empty() {
            return;
        }
        // Depth ≤ log2(shells / LEAF) + 1 (median splits): 64 slots hold any tree.
        let mut stack = [0usize; 64];
        let mut top = 1usize;
        while top > 0 {
            top -= 1;
            let n = &self.nodes[stack[top]];
            if (0..3).any(|a| p[a] < n.lo[a] || p[a] > n.hi[a]) {
                continue;
            }
            let first = n.first as usize;
            if n.count > 0 {
                for &s in &self.order[first..first + n.count as usize] {
                    f(s as usize);
                }
            } else if top + 2 <= stack.len() {
                stack[top] = first + 1;
                stack[top + 1] = first;
                top += 2;
            }
        }
    }
}

/// A leaf over `order[first..first + count]` with the union of those shells' boxes.
fn leaf_over(boxes: &[(V3, V3)], order: &[u32], first: usize, count: usize) -> Node {
    let (mut lo, mut hi) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY));
    for &s in &order[first..first + count] {
        lo = lo.inf(&boxes[s as usize].0);
        hi = hi.sup(&boxes[s as usize].1);
    }
    Node {
        lo,
        hi,
        first: first as u32,
        count: count as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_visits_every_box_that_holds_it() {
        // 50 unit boxes on a jittered line, overlapping their neighbours.
        let boxes: Vec<(V3, V3)> = (0..50)
            .map(|i| {
                let x = i as f64 * 0.7 + (i % 3) as f64 * 0.1;
                let y = (i % 5) as f64 * 0.3;
                (V3::new(x, y, 0.0), V3::new(x + 1.0, y + 1.0, 1.0))
            })
            .collect();
        let tree = BoxTree::new(&boxes);
        for k in 0..400 {
            let p = V3::new(k as f64 * 0.09 - 1.0, (k % 7) as f64 * 0.25, 0.5);
            let mut seen = vec![false; boxes.len()];
            tree.visit(&p, |s| seen[s] = true);
            for (s, (lo, hi)) in boxes.iter().enumerate() {
                let holds = (0..3).all(|a| p[a] >= lo[a] && p[a] <= hi[a]);
                assert!(!holds || seen[s], "box {s} holds {p:?} but was not visited");
            }
        }
    }
}
