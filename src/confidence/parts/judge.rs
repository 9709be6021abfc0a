//! How [`super`] judges one empty part: the leaf chains as the check sees them, and the scene
//! (graph, embedded joints, chains) a part is held against, steps 3–5 of the module docs.

use super::geometry::seg_dist;
use super::{direction_words, EmptyPart, CONTINUE_COS, EMPTY_SHARE, LIMB_SHARE, SIDE_CONTINUE_COS};
use crate::confidence::shape::pinned_chain;
use crate::confidence::{chain_lengths, optional};
use crate::discretize::SphereGraph;
use crate::embed::reduced::Reduced;
use crate::embed::Orientation;
use crate::geom::{JointId, P3, V3};
use crate::skeleton::Skeleton;

/// A leaf chain of the skeleton as the check sees it.
pub(super) struct Chain {
    /// Name of the chain's end joint.
    end: String,
    /// Full joints along it, parent's joint first.
    joints: Vec<usize>,
    /// Embedded length.
    got: f64,
    /// The template's length of the chain, scaled like the embedding (total embedded over total
    /// template length of the core chains).
    want: f64,
    /// Template direction from the chain's start to its end (template frame, unit).
    dir: V3,
    /// Side of the body for a mirrored chain (template-frame sign of x, the character's left at
    /// −X); `None` for a chain without a mirror (head, tail).
    side: Option<f64>,
}

impl Chain {
    /// Arc length along the embedded chain to its point nearest `p`, and that point.
    fn nearest(&self, q: &[P3], p: &P3) -> (f64, P3) {
        let mut best = (f64::INFINITY, 0.0, q[self.joints[0]]);
        let mut walked = 0.0;
        for w in self.joints.windows(2) {
            let (a, b) = (q[w[0]], q[w[1]]);
            let ab = b - a;
            let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-300)).clamp(0.0, 1.0);
            let at = a + ab * t;
            let d = (p - at).norm();
            if d < best.0 {
                best = (d, walked + t * ab.norm(), at);
            }
            walked += ab.norm();
        }
        (best.1, best.2)
    }
}

pub(super) fn leaf_chains(skel: &Skeleton, q: &[P3], pinned: &[JointId]) -> Vec<Chain> {
    let red = Reduced::new(skel);
    let got = chain_lengths(&red, q);
    let core = |k: &usize| !optional(skel, &red.joints[*k]);
    let total = |f: &dyn Fn(usize) -> f64| (0..red.len()).filter(core).map(f).sum::<f64>();
    let fit = total(&|k| got[k]) / total(&|k| red.joints[k].chain_len).max(1e-12);
    (0..red.len())
        .filter(|k| core(k) && red.joints[*k].leaf && !pinned_chain(&red.joints[*k], pinned))
        .filter_map(|k| {
            let r = &red.joints[k];
            let dir = r.rest - red.joints[r.parent?].rest;
            let mirrored = r.sym.is_some() || red.joints.iter().any(|o| o.sym == Some(k));
            let side = r.rest.x - red.joints[0].rest.x;
            (dir.norm() > 0.0).then(|| Chain {
                end: skel.joints[r.full.0].name.clone(),
                joints: r.chain.iter().map(|j| j.0).collect(),
                got: got[k],
                want: r.chain_len * fit,
                dir: dir.normalize(),
                side: (mirrored && side != 0.0).then(|| side.signum()),
            })
        })
        .collect()
}
/// What one empty part is judged against.
pub(super) struct Scene<'a> {
    pub(super) graph: &'a SphereGraph,
    pub(super) q: &'a [P3],
    pub(super) segs: Vec<(usize, usize)>,
    pub(super) chains: Vec<Chain>,
    /// Graph distance to the nearest reached sphere.
    pub(super) dist: Vec<f64>,
    pub(super) o: &'a Orientation,
    pub(super) root: usize,
}

impl Scene<'_> {
    /// The leaf chain whose bone passes nearest to `p`, if the nearest bone belongs to one.
    fn chain_at(&self, p: &P3) -> Option<&Chain> {
        let q = self.q;
        let bone = |x: &(usize, usize)| seg_dist(p, &q[x.0], &q[x.1]);
        let &(pa, ch) = self
            .segs
            .iter()
            .min_by(|x, y| bone(x).total_cmp(&bone(y)))?;
        self.chains
            .iter()
            .find(|c| c.joints[1..].contains(&ch) && c.joints.contains(&pa))
    }

    /// The empty part `group` judged against the skeleton (steps 3–5 of the module docs).
    pub(super) fn judge(&self, group: &[usize]) -> Option<EmptyPart> {
        self.stopped_short(group)
            .or_else(|| self.went_elsewhere(group))
    }

    /// Steps 3 and 4 of the module docs for one group of unreached spheres.
    fn stopped_short(&self, group: &[usize]) -> Option<EmptyPart> {
        let (g, q, dist) = (self.graph, self.q, &self.dist);
        // The far end (graph distance out of the reached volume plus the sphere's radius) and the
        // sphere where the part hangs on the reached volume.
        let reach = |i: &usize| dist[*i] + g.spheres[*i].radius;
        let tip = *group.iter().max_by(|a, b| reach(a).total_cmp(&reach(b)))?;
        let base = *group
            .iter()
            .min_by(|a, b| dist[**a].total_cmp(&dist[**b]))?;
        let (bc, tc) = (g.spheres[base].center, g.spheres[tip].center);
        let chain = self.chain_at(&bc)?;
        let out = self.o.apply(&(tc - q[*chain.joints.last()?]));
        // How far the part reaches beyond the chain's end, straight (graph paths wind).
        let missing = out.norm() + g.spheres[tip].radius;
        let continues = out.norm() > 0.0 && out.normalize().dot(&chain.dir) >= CONTINUE_COS;
        let share = missing / (chain.got + missing);
        (continues && share > EMPTY_SHARE).then(|| self.part(chain, &tc, share, false))
    }

    fn part(&self, chain: &Chain, tip: &P3, share: f64, passed_by: bool) -> EmptyPart {
        EmptyPart {
            direction: direction_words(&self.o.apply(&(tip - self.q[self.root]))),
            chain: chain.end.clone(),
            share,
            passed_by,
        }
    }

    /// Step 5 of the module docs. A part may touch the reached volume in several places (a hand
    /// resting on the thigh as well as the shoulder): a limb joins the body at its root, its
    /// thickest end, so the attachment is the thickest sphere of `group` bordering the reached
    /// volume, and the part's far end is the sphere farthest from it, straight.
    fn went_elsewhere(&self, group: &[usize]) -> Option<EmptyPart> {
        let g = self.graph;
        let radius = |i: &usize| g.spheres[*i].radius;
        let b = group
            .iter()
            .filter(|i| {
                g.edges[**i]
                    .iter()
                    .any(|(n, _)| self.dist[n.0 as usize] == 0.0)
            })
            .max_by(|x, y| radius(x).total_cmp(&radius(y)).then(y.cmp(x)))?;
        let base = g.spheres[*b].center;
        let reach = |i: &usize| (g.spheres[*i].center - base).norm() + radius(i);
        let tip = group.iter().max_by(|x, y| reach(x).total_cmp(&reach(y)))?;
        let tc = g.spheres[*tip].center;
        let chain = self.chain_at(&base)?;
        let share = self.side_share(chain, base, tc, radius(tip))?;
        Some(self.part(chain, &tc, share, true))
    }

    /// The share of the limb route (chain start → attachment `base` → the part's far end `tip`,
    /// radius `tip_r`) without a bone, when the mirrored `chain` has the part on its own side of
    /// the body, the share exceeds [`EMPTY_SHARE`] and the part is limb-sized ([`LIMB_SHARE`]).
    fn side_share(&self, chain: &Chain, base: P3, tip: P3, tip_r: f64) -> Option<f64> {
        let side = chain.side?;
        let q = self.q;
        let lateral = |p: &P3| side * self.o.apply(&(p - q[self.root])).x;
        let first = *chain.joints.get(1)?;
        if lateral(&tip) < lateral(&q[first]).max(0.0) {
            return None;
        }
        let (along, at) = chain.nearest(q, &base);
        let out = self.o.apply(&(tip - at));
        if out.norm() == 0.0 || out.normalize().dot(&chain.dir) < SIDE_CONTINUE_COS {
            return None;
        }
        let missing = (tip - at).norm() + tip_r;
        let share = missing / (along + missing);
        (share > EMPTY_SHARE && missing >= LIMB_SHARE * chain.want).then_some(share)
    }
}
