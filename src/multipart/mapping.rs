//! Joint mapping (Bharaj et al. 2012 §8): each high-resolution branch is matched to each template
//! branch by an order-preserving dynamic program over the node cost K (Eq. 8, in
//! [`super::branch_match`]); each row of the branch matrix keeps its cheapest column (Eq. 6); the
//! low-resolution tree keeps one high-resolution branch per limb (§8.6); shared nodes go to the
//! cheapest kept branch (§8.7); unmapped nodes ride with their nearest mapped ancestor (§8.8).

use super::branch_match::{match_branch, NodeTerms};
use super::tree::Tree;
use crate::geom::P3;

/// The template as the mapper sees it: placed positions (normalized frame, §18.1), parents,
/// and pins (a hint's target, normalized frame).
#[derive(Clone, Debug)]
pub struct Target {
    /// Joint position after placement.
    pub position: Vec<P3>,
    /// Parent joint.
    pub parent: Vec<Option<usize>>,
    /// Pinned target per joint.
    pub pin: Vec<Option<P3>>,
    /// Mesh height (the default-height unit of K_Pos).
    pub height: f64,
}

impl Target {
    fn children(&self, j: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.parent.len()).filter(move |&c| self.parent[c] == Some(j))
    }

    /// Joint `j`'s degree in the template tree (K_Deg of Eq. 8 compares it with a node's).
    pub(super) fn degree(&self, j: usize) -> usize {
        self.children(j).count() + usize::from(self.parent[j].is_some())
    }

    /// Root-to-leaf joint paths.
    pub fn branches(&self) -> Vec<Vec<usize>> {
        (0..self.parent.len())
            .filter(|&j| self.children(j).next().is_none() && self.parent[j].is_some())
            .map(|leaf| {
                let mut p = vec![leaf];
                while let Some(q) = self.parent[*p.last().unwrap_or(&0)] {
                    p.push(q);
                }
                p.reverse();
                p
            })
            .collect()
    }
}

/// One high-resolution branch kept after §8.6.
#[derive(Clone, Debug)]
pub struct Kept {
    /// Its leaf node (high-resolution tree).
    pub leaf: usize,
    /// The template branch it maps to (index into [`Target::branches`]).
    pub column: usize,
    /// Its Q.
    pub q: f64,
    /// Matched pairs.
    pub pairs: Vec<(usize, usize)>,
    /// The cheapest kept branch of its template branch (defines the joints); the others are extra
    /// limbs (many-to-one, §8.2), bound rigidly with their first shared ancestor (see `joints`).
    pub primary: bool,
}

/// The mapping's outcome.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// Kept branches, by ascending Q.
    pub kept: Vec<Kept>,
    /// Joint per high-resolution node after conflict resolution (primary branches only).
    pub node_joint: Vec<Option<usize>>,
    /// High-resolution branches (I) and low-resolution branches (L).
    pub branch_counts: (usize, usize),
}

/// Which template branches each high-resolution branch may map to, given the pins. A pin on a
/// limb joint (one on a single template branch, below the template's last fork) names the part
/// node nearest its target; the limb may then map only to branches through that node, and a branch
/// through it only to the limbs pinned there. A pin on a shared joint (spine, hips) names no limb
/// and constrains nothing. Not in the paper (it has no hints): a pin is the user's word on which
/// cluster is which limb, so it must override the costs, not just add one.
fn allowed_columns(
    high: &Tree,
    hbs: &[Vec<usize>],
    abs: &[Vec<usize>],
    target: &Target,
) -> Vec<Vec<bool>> {
    // The part node nearest each pinned limb (the root is shared by every branch: never a limb).
    let pinned_node: Vec<Option<usize>> = abs
        .iter()
        .map(|ab| {
            ab.iter()
                .filter(|&&a| abs.iter().filter(|o| o.contains(&a)).count() == 1)
                .find_map(|&a| target.pin[a])
                .and_then(|p| {
                    (0..high.len())
                        .filter(|&n| high.parent[n].is_some())
                        .min_by(|&x, &y| {
                            let d = |n: usize| (high.centre[n] - p).norm();
                            d(x).total_cmp(&d(y)).then(x.cmp(&y))
                        })
                })
        })
        .collect();
    hbs.iter()
        .map(|hb| {
            let through = |j: usize| pinned_node[j].is_some_and(|n| hb[1..].contains(&n));
            let pinned_here = (0..abs.len()).any(through);
            (0..abs.len())
                .map(|j| match pinned_node[j] {
                    Some(_) => through(j),
                    None => !pinned_here,
                })
                .collect()
        })
        .collect()
}

/// A row minimum of the branch matrix: template branch, Q, matched `(node, joint)` pairs.
type RowMin = (usize, f64, Vec<(usize, usize)>);

/// Map `target` onto `high`, choosing among high-resolution branches with `low_branches` (each a
/// set of components).
pub fn map(high: &Tree, low_branches: &[Vec<usize>], target: &Target) -> Mapping {
    let terms = NodeTerms::of(high);
    let hbs = high.branches();
    let abs = target.branches();
    let allowed = allowed_columns(high, &hbs, &abs, target);
    let rows = row_minima(high, &terms, target, &hbs, &abs, &allowed);
    let best_in_group = best_per_group(high, &hbs, &rows, low_branches);
    let (mut kept, seen) = kept_branches(best_in_group, &hbs, &rows, abs.len());
    let ctx = Fill {
        high,
        terms: &terms,
        target,
        hbs: &hbs,
        abs: &abs,
        allowed: &allowed,
    };
    kept.extend(fill_unmapped(&ctx, &seen, &kept));
    // §8.7 winner takes all: kept branches in ascending Q, a node keeps its first joint.
    let mut node_joint = vec![None; high.len()];
    for k in kept.iter().filter(|k| k.primary) {
        for &(n, j) in &k.pairs {
            node_joint[n].get_or_insert(j);
        }
    }
    Mapping {
        kept,
        node_joint,
        branch_counts: (hbs.len(), low_branches.len()),
    }
}

/// Row minima of the I × J matrix (Eq. 6), over the columns the pins allow.
fn row_minima(
    high: &Tree,
    terms: &NodeTerms,
    target: &Target,
    hbs: &[Vec<usize>],
    abs: &[Vec<usize>],
    allowed: &[Vec<bool>],
) -> Vec<RowMin> {
    hbs.iter()
        .zip(allowed)
        .map(|(hb, ok)| {
            abs.iter()
                .enumerate()
                .filter(|(j, _)| ok[*j])
                .map(|(j, ab)| {
                    let (q, p) = match_branch(high, terms, target, hb, ab);
                    (j, q, p)
                })
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
                .unwrap_or((0, f64::INFINITY, Vec::new()))
        })
        .collect()
}

/// Per low-resolution branch, the high-resolution branch kept for it: (cover, Q, branch index).
fn best_per_group(
    high: &Tree,
    hbs: &[Vec<usize>],
    rows: &[RowMin],
    low_branches: &[Vec<usize>],
) -> Vec<Option<(usize, f64, usize)>> {
    // §8.6: group by the low-resolution branch sharing most components; keep the cheapest per group.
    // The shared root is left out on both sides (see `report::cluster_both`); a branch sharing no
    // piece with any low-resolution limb lies inside the body and joins no group [INTERPRETATION].
    let mut best_in_group: Vec<Option<(usize, f64, usize)>> = vec![None; low_branches.len()];
    for (i, hb) in hbs
        .iter()
        .enumerate()
        .filter(|(i, _)| rows[*i].1.is_finite())
    {
        let comps: Vec<usize> = hb[1..]
            .iter()
            .flat_map(|&n| high.members[n].iter().copied())
            .collect();
        let common = |l: usize| {
            comps
                .iter()
                .filter(|c| low_branches[l].binary_search(c).is_ok())
                .count()
        };
        let Some(group) = (0..low_branches.len())
            .filter(|&l| common(l) > 0)
            .max_by_key(|&l| (common(l), std::cmp::Reverse(l)))
        else {
            continue;
        };
        // The paper keeps the lowest Q per group; Q is an unnormalized sum over a branch's nodes
        // (§8.3), so a one-piece branch that barely enters the limb beats the limb itself. We keep
        // the branch covering most of the limb's pieces, then the lowest Q [INTERPRETATION].
        let (cover, q) = (common(group), rows[i].1);
        let slot = &mut best_in_group[group];
        if slot.is_none_or(|(c, _, b)| cover > c || (cover == c && q < rows[b].1)) {
            *slot = Some((cover, q, i));
        }
    }
    best_in_group
}

/// The kept branches by ascending Q, the cheapest of each template branch marked primary; with
/// which of the `n_columns` template branches got one.
fn kept_branches(
    best_in_group: Vec<Option<(usize, f64, usize)>>,
    hbs: &[Vec<usize>],
    rows: &[RowMin],
    n_columns: usize,
) -> (Vec<Kept>, Vec<bool>) {
    let mut kept: Vec<Kept> = best_in_group
        .into_iter()
        .flatten()
        .map(|(_, _, i)| Kept {
            leaf: *hbs[i].last().unwrap_or(&0),
            column: rows[i].0,
            q: rows[i].1,
            pairs: rows[i].2.clone(),
            primary: false,
        })
        .collect();
    kept.sort_by(|a, b| a.q.total_cmp(&b.q).then(a.leaf.cmp(&b.leaf)));
    let mut seen = vec![false; n_columns];
    for k in &mut kept {
        k.primary = !std::mem::replace(&mut seen[k.column], true);
    }
    (kept, seen)
}

/// What `fill_unmapped` reads.
struct Fill<'a> {
    high: &'a Tree,
    terms: &'a NodeTerms,
    target: &'a Target,
    hbs: &'a [Vec<usize>],
    abs: &'a [Vec<usize>],
    allowed: &'a [Vec<bool>],
}

/// Template limbs no kept branch maps to (the low-resolution tree merged that limb into the body,
/// e.g. a head held by many small contacts) take the cheapest high-resolution branch not kept,
/// whose leaf is on no kept branch. Not in the paper: it lets every template limb find a branch
/// when the part tree has one.
fn fill_unmapped(c: &Fill<'_>, seen: &[bool], kept: &[Kept]) -> Vec<Kept> {
    let (high, hbs, abs) = (c.high, c.hbs, c.abs);
    let mut used: Vec<bool> = vec![false; high.len()];
    for k in kept {
        for n in high.path_to(k.leaf).into_iter().skip(1) {
            used[n] = true;
        }
    }
    let mut out: Vec<Kept> = Vec::new();
    for (j, ab) in abs.iter().enumerate().filter(|(j, _)| !seen[*j]) {
        let best = hbs
            .iter()
            .zip(c.allowed)
            .filter(|(hb, ok)| ok[j] && hb[1..].iter().all(|&n| !used[n]))
            .map(|(hb, _)| {
                let (q, pairs) = match_branch(high, c.terms, c.target, hb, ab);
                (q, *hb.last().unwrap_or(&0), pairs)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some((q, leaf, pairs)) = best {
            for n in high.path_to(leaf).into_iter().skip(1) {
                used[n] = true;
            }
            out.push(Kept {
                leaf,
                column: j,
                q,
                pairs,
                primary: true,
            });
        }
    }
    out
}
