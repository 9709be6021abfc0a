//! The part tree of a box figure: groups of pieces, the trunk, and the tree grown from it.

use super::{Group, PartTree, CONTACT_FRACTION};
use crate::confidence::pieces::Piece;
use crate::geom::{Aabb, P3, V3};

impl PartTree {
    /// Group the pieces, pick the trunk, grow the tree.
    pub fn new(pieces: Vec<Piece>, figure: &Aabb) -> Self {
        let eps = CONTACT_FRACTION * figure.extent().norm();
        let groups = group(&pieces);
        let trunk = trunk(&groups, eps);
        let parent = grow(&groups, trunk, eps);
        Self {
            pieces,
            groups,
            trunk,
            parent,
            eps,
        }
    }

    /// The trunk's children: one branch each.
    pub fn branches(&self) -> Vec<usize> {
        (0..self.groups.len())
            .filter(|&g| self.parent[g] == Some(self.trunk))
            .collect()
    }

    fn children(&self, g: usize) -> Vec<usize> {
        (0..self.groups.len())
            .filter(|&c| self.parent[c] == Some(g))
            .collect()
    }

    /// Box volume of `g` and everything below it.
    pub fn subtree_volume(&self, g: usize) -> f64 {
        let e = self.groups[g].aabb.extent();
        e.x * e.y * e.z
            + self
                .children(g)
                .iter()
                .map(|&c| self.subtree_volume(c))
                .sum::<f64>()
    }

    /// From `g` down, each time into the child with the larger subtree (earlier on ties).
    pub fn path(&self, g: usize) -> Vec<usize> {
        let mut out = vec![g];
        let mut at = g;
        loop {
            let next = self.children(at).into_iter().fold(None, |best, c| {
                let v = self.subtree_volume(c);
                match best {
                    Some((_, bv)) if bv >= v => best,
                    _ => Some((c, v)),
                }
            });
            match next {
                Some((c, _)) => {
                    out.push(c);
                    at = c;
                }
                None => return out,
            }
        }
    }

    /// Groups parents first.
    pub(super) fn order(&self) -> Vec<usize> {
        let mut out = vec![self.trunk];
        let mut k = 0;
        while k < out.len() {
            out.extend(self.children(out[k]));
            k += 1;
        }
        out
    }
}

/// Volume of the overlap of two boxes.
fn overlap(a: &Aabb, b: &Aabb) -> f64 {
    (0..3)
        .map(|k| (a.max[k].min(b.max[k]) - a.min[k].max(b.min[k])).max(0.0))
        .product()
}

fn volume(a: &Aabb) -> f64 {
    let e = a.extent();
    e.x * e.y * e.z
}

/// Pieces whose boxes overlap by at least half the smaller one are one group (a hat shell round
/// a head; welded neighbours only share a face, which has no volume).
fn group(pieces: &[Piece]) -> Vec<Group> {
    let n = pieces.len();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(r: &mut [usize], mut i: usize) -> usize {
        while r[i] != i {
            i = r[i];
        }
        i
    }
    for a in 0..n {
        for b in a + 1..n {
            let (pa, pb) = (&pieces[a].aabb, &pieces[b].aabb);
            if overlap(pa, pb) >= 0.5 * volume(pa).min(volume(pb)) {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for (i, piece) in pieces.iter().enumerate() {
        let r = find(&mut root, i);
        let g = *slot[r].get_or_insert_with(|| {
            groups.push(Group {
                pieces: Vec::new(),
                aabb: Aabb::empty(),
                area: 0.0,
            });
            groups.len() - 1
        });
        groups[g].pieces.push(i);
        groups[g].aabb.grow(&piece.aabb.min);
        groups[g].aabb.grow(&piece.aabb.max);
        groups[g].area += piece.area;
    }
    groups
}

/// Distance between two boxes (0 when they touch or overlap).
pub(super) fn gap(a: &Aabb, b: &Aabb) -> f64 {
    V3::from_fn(|k, _| (a.min[k] - b.max[k]).max(b.min[k] - a.max[k]).max(0.0)).norm()
}

/// The trunk: the group that is the nearest neighbour (within `eps` of the nearest) of the most
/// groups, as the body is of the head and every limb (the paper roots its tree at the most central
/// node, §6); ties to the group nearest the area-weighted centre of all boxes (the body sits where
/// the mass is), then the larger.
fn trunk(groups: &[Group], eps: f64) -> usize {
    let n = groups.len();
    let mut hub = vec![0usize; n];
    for h in 0..n {
        let gaps: Vec<f64> = (0..n)
            .map(|k| {
                if k == h {
                    f64::INFINITY
                } else {
                    gap(&groups[h].aabb, &groups[k].aabb)
                }
            })
            .collect();
        let least = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        for (k, g) in gaps.iter().enumerate() {
            if *g <= least + eps {
                hub[k] += 1;
            }
        }
    }
    let total: f64 = groups.iter().map(|g| g.area).sum();
    let c = groups
        .iter()
        .fold(V3::zeros(), |s, g| s + g.aabb.center().coords * g.area)
        / total.max(1e-300);
    let point = Aabb {
        min: P3::from(c),
        max: P3::from(c),
    };
    (0..n)
        .min_by(|&a, &b| {
            let (ga, gb) = (gap(&groups[a].aabb, &point), gap(&groups[b].aabb, &point));
            hub[b]
                .cmp(&hub[a])
                .then(ga.total_cmp(&gb))
                .then(volume(&groups[b].aabb).total_cmp(&volume(&groups[a].aabb)))
                .then(a.cmp(&b))
        })
        .unwrap_or(0)
}

/// Grow the tree from `trunk` (Prim): the next group is the one nearest a group already in the
/// tree, gaps under `eps` counting as contact; ties go to the group that joined earlier, so two
/// touching siblings both hang from the trunk rather than from each other. (Ties within a whole
/// contact distance were tried: a head 0.064 from its torso slab then hung from an arm 0.14
/// away, `mobs_stone_monster`.)
fn grow(groups: &[Group], trunk: usize, eps: f64) -> Vec<Option<usize>> {
    let n = groups.len();
    let mut parent = vec![None; n];
    let mut order = vec![trunk];
    let mut inside = vec![false; n];
    inside[trunk] = true;
    while order.len() < n {
        let mut cands: Vec<(f64, usize, usize)> = Vec::new();
        for (rank, &p) in order.iter().enumerate() {
            for c in (0..n).filter(|&c| !inside[c]) {
                cands.push((gap(&groups[p].aabb, &groups[c].aabb), rank, c));
            }
        }
        // Gaps under the contact distance are contact (all equal); others equal up to rounding
        // (a millionth of the contact distance). Among the least, the group that joined first
        // takes the new one.
        let key = |g: f64| if g <= eps { 0.0 } else { g };
        let least = cands.iter().map(|c| key(c.0)).fold(f64::INFINITY, f64::min);
        let Some(&(_, rank, c)) = cands
            .iter()
            .filter(|c| key(c.0) <= least + 1e-6 * eps)
            .min_by_key(|c| (c.1, c.2))
        else {
            break;
        };
        parent[c] = Some(order[rank]);
        inside[c] = true;
        order.push(c);
    }
    parent
}
