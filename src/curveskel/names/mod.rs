//! What each branch of a generated skeleton is, from its shape (the paper names nothing, §8): the
//! joints are called `<kind>_<k>_<j>`. A *limb* is a chain from a junction to a leaf tip. Rules, in
//! order, each on limbs no earlier rule claimed:
//!
//! 1. **Claws**: a junction at the end of an inner chain that ends in exactly two similar leaf
//!    limbs, shorter than [`PINCER`] × the chain and closing like jaws (within [`PINCER_COS`] of
//!    each other) — the chain and both fingers. Checked first: a pincer is the most specific shape.
//! 2. **Legs**: limbs whose tip lies in the lowest [`GROUND_BAND`] of the model's height and below
//!    their junction ([`LEG_COS`]), at least two (legs come in pairs; a lone limb pointing down is
//!    a wrist). "Down" is the project's rest-pose convention, −Y of the mesh.
//! 3. **Tentacles**: at least [`TENTACLE_MIN`] similar limbs among the legs and the unclaimed
//!    limbs (length within [`SIMILAR`] of their median) whose directions spread all round (their
//!    mean unit direction is shorter than [`SPREAD`]: legs and fingers point one way) and fewer than
//!    half of which stand on the ground (else they are legs: a scorpion's splay all round too). Legs
//!    among them become tentacles (an octopus's arm that reaches the ground), and so do the limbs
//!    leaving another junction a tentacle leaves (a tentacle touching another in the view).
//! 4. **Fingers**: at least three similar limbs from one junction, roughly parallel (each within
//!    [`PARALLEL_COS`] of their mean direction: a spread hand's fingers fan out by ~50°).
//! 5. **Tail**: the longest remaining limb not steeply down ([`TAIL_DOWN_COS`]) that points away
//!    ([`OPPOSITE_COS`]) from a thicker limb no longer than itself (a head) or from a claw, and has
//!    no twin at its junction ([`PAIR`]: an A-pose arm points away from the head too); one tail at
//!    most.
//!
//! Everything else stays `branch`. Unit tests build each pattern as a bare graph; the corpus
//! creatures are checked in tests/curve_corpus.rs.

mod limbs;
mod rules;

use crate::geom::{P3, V3};
use limbs::{limbs, Ground};
use rules::{claws, fingers, legs, tail, tentacles};

/// Fewest radiating similar limbs that make tentacles: more than a vertebrate's four limbs and
/// head (a human in T-pose radiates five similar limbs; a starfish's five arms stay `branch`/`leg`).
pub const TENTACLE_MIN: usize = 6;
/// Similar limbs: length within this factor of the group's median.
pub const SIMILAR: f64 = 2.0;
/// Tentacles radiate: the mean of their unit directions is shorter than this (legs and fingers,
/// which point one way, come out near 0.5–1).
pub const SPREAD: f64 = 0.45;
/// A leg's tip lies in this lowest fraction of the model's height.
pub const GROUND_BAND: f64 = 0.25;
/// …and below its junction: the direction junction → tip at most ~81° from straight down (legs of
/// a sprawling creature reach out more than down).
pub const LEG_COS: f64 = 0.15;
/// Fingers: each direction within ~53° of the fingers' mean direction.
pub const PARALLEL_COS: f64 = 0.6;
/// A pincer's fingers are shorter than this fraction of the chain carrying them.
pub const PINCER: f64 = 0.8;
/// …and close like jaws: their directions within 60° of each other.
pub const PINCER_COS: f64 = 0.5;
/// A tail may hang, but not steeply: its direction more than 30° from straight down.
pub const TAIL_DOWN_COS: f64 = 0.87;
/// A tail points away from the head: cosine between their directions at most this (≥ 120°).
pub const OPPOSITE_COS: f64 = -0.5;
/// A head is thicker than the tail by at least this factor of mean radius.
pub const THICKER: f64 = 1.25;
/// Two limbs from one junction within this factor in length (and within [`THICKER`] in
/// thickness) are a pair (two arms), neither of them a tail.
pub const PAIR: f64 = 1.25;

/// The kind of a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing recognised.
    Branch,
    /// Radiating similar limbs.
    Tentacle,
    /// Limbs reaching the ground.
    Leg,
    /// Parallel similar limbs.
    Finger,
    /// A pincer and the chain carrying it.
    Claw,
    /// A single limb away from the head.
    Tail,
}

impl Kind {
    /// The joint-name prefix.
    pub fn label(self) -> &'static str {
        match self {
            Self::Branch => "branch",
            Self::Tentacle => "tentacle",
            Self::Leg => "leg",
            Self::Finger => "finger",
            Self::Claw => "claw",
            Self::Tail => "tail",
        }
    }
}

/// The skeleton graph: vertex positions and radii (frame coordinates), and per vertex its edges
/// `(neighbour, branch, length)`.
pub struct Graph<'a> {
    /// Positions.
    pub pos: &'a [P3],
    /// Local radii.
    pub r: &'a [f64],
    /// Edges.
    pub adj: &'a [Vec<(usize, usize, f64)>],
}

/// The kind of each branch; `down` is the down direction in the graph's coordinates.
pub fn kinds(g: &Graph, branch_count: usize, down: V3) -> Vec<Kind> {
    let mut kind = vec![Kind::Branch; branch_count];
    let limbs = limbs(g);
    let mut free: Vec<bool> = vec![true; limbs.len()];
    let ground = Ground::of(g, down);
    let claws = claws(g, &limbs, &mut free, &mut kind);
    legs(&limbs, &ground, &mut free, &mut kind);
    tentacles(&limbs, &mut free, &mut kind);
    fingers(&limbs, &mut free, &mut kind);
    tail(&limbs, &claws, down, &free, &mut kind);
    kind
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of limbs from one hub at the origin: (direction, length, radius) each, two
    /// vertices per limb (middle and tip).
    struct G {
        pos: Vec<P3>,
        r: Vec<f64>,
        adj: Vec<Vec<(usize, usize, f64)>>,
        branches: usize,
    }

    impl G {
        fn new(hub_r: f64) -> Self {
            Self {
                pos: vec![P3::origin()],
                r: vec![hub_r],
                adj: vec![Vec::new()],
                branches: 0,
            }
        }

        fn vertex(&mut self, p: P3, r: f64) -> usize {
            self.pos.push(p);
            self.r.push(r);
            self.adj.push(Vec::new());
            self.pos.len() - 1
        }

        fn edge(&mut self, a: usize, b: usize, br: usize) {
            let l = (self.pos[a] - self.pos[b]).norm();
            self.adj[a].push((b, br, l));
            self.adj[b].push((a, br, l));
        }

        /// A limb from `from` along `dir` (need not be unit); returns its tip.
        fn limb(&mut self, from: usize, dir: V3, r: f64) -> usize {
            let br = self.branches;
            self.branches += 1;
            let mid = self.vertex(self.pos[from] + dir * 0.5, r);
            let tip = self.vertex(self.pos[from] + dir, r);
            self.edge(from, mid, br);
            self.edge(mid, tip, br);
            tip
        }

        fn kinds(&self) -> Vec<Kind> {
            let g = Graph {
                pos: &self.pos,
                r: &self.r,
                adj: &self.adj,
            };
            kinds(&g, self.branches, V3::new(0.0, -1.0, 0.0))
        }
    }

    fn count(k: &[Kind], of: Kind) -> usize {
        k.iter().filter(|&&x| x == of).count()
    }

    #[test]
    fn radiating_arms_are_tentacles_even_where_they_reach_the_ground() {
        let mut g = G::new(0.1);
        for i in 0..8 {
            let a = i as f64 * std::f64::consts::TAU / 8.0;
            g.limb(0, V3::new(a.cos(), a.sin(), 0.0) * 0.4, 0.03);
        }
        assert_eq!(count(&g.kinds(), Kind::Tentacle), 8);
    }

    #[test]
    fn a_quadruped_has_four_legs_and_a_tail_and_a_head() {
        let mut g = G::new(0.1);
        for x in [-0.3, 0.3] {
            for z in [-0.1, 0.1] {
                g.limb(0, V3::new(x, -0.4, z), 0.04);
            }
        }
        g.limb(0, V3::new(0.0, 0.2, 0.35), 0.08); // head: thick, forward and up
        g.limb(0, V3::new(0.0, 0.05, -0.5), 0.02); // tail: thin, backward
        let k = g.kinds();
        assert_eq!(&k[..4], &[Kind::Leg; 4]);
        assert_eq!(k[4], Kind::Branch, "the head is no tail");
        assert_eq!(k[5], Kind::Tail);
    }

    #[test]
    fn a_hand_has_fingers_and_a_wrist_that_is_not_a_leg() {
        let mut g = G::new(0.1);
        for x in [-0.15, -0.05, 0.05, 0.15] {
            g.limb(0, V3::new(x, 0.4, 0.0), 0.03);
        }
        g.limb(0, V3::new(0.0, -0.3, 0.0), 0.06); // wrist: alone, pointing down
        let k = g.kinds();
        assert_eq!(count(&k, Kind::Finger), 4);
        assert_eq!(k[4], Kind::Branch);
    }

    #[test]
    fn pincers_are_claws_and_the_limb_opposite_is_the_tail() {
        let mut g = G::new(0.1);
        for x in [-0.3, -0.1, 0.1, 0.3] {
            g.limb(0, V3::new(x, -0.3, 0.1), 0.02);
            g.limb(0, V3::new(x, -0.3, -0.1), 0.02);
        }
        let legs = g.branches;
        for x in [-0.15, 0.15] {
            let arm = g.branches;
            g.branches += 1;
            let wrist = g.vertex(P3::new(x, 0.0, 0.4), 0.04);
            g.edge(0, wrist, arm);
            g.limb(wrist, V3::new(0.03, 0.0, 0.1), 0.02);
            g.limb(wrist, V3::new(-0.03, 0.0, 0.1), 0.02);
        }
        g.limb(0, V3::new(0.0, 0.3, -0.4), 0.03); // tail, raised
        let k = g.kinds();
        assert_eq!(count(&k[..legs], Kind::Leg), 8, "{k:?}");
        assert_eq!(count(&k, Kind::Claw), 6, "{k:?}");
        assert_eq!(k[k.len() - 1], Kind::Tail, "{k:?}");
    }
}
