//! The five shape rules of [`super`] (claws, legs, tentacles, fingers, tail), each claiming limbs
//! no earlier rule claimed; the numbers are the rules' order in the `names` module comment.

use super::limbs::{mark, median, similar, Ground, Limb};
use super::{
    Graph, Kind, LEG_COS, OPPOSITE_COS, PAIR, PARALLEL_COS, PINCER, PINCER_COS, SPREAD,
    TAIL_DOWN_COS, TENTACLE_MIN, THICKER,
};
use crate::geom::V3;

/// Rule 3 (the `names` module comment).
pub(super) fn tentacles(limbs: &[Limb], free: &mut [bool], kind: &mut [Kind]) {
    let is_leg = |i: usize| kind[limbs[i].branch] == Kind::Leg;
    let open: Vec<usize> = (0..limbs.len()).filter(|&i| free[i] || is_leg(i)).collect();
    let m = median(open.iter().map(|&i| limbs[i].len).collect());
    let group: Vec<usize> = open
        .into_iter()
        .filter(|&i| similar(limbs[i].len, m))
        .collect();
    if group.len() < TENTACLE_MIN {
        return;
    }
    let mean = group.iter().fold(V3::zeros(), |a, &i| a + limbs[i].dir) / group.len() as f64;
    let standing = group.iter().filter(|&&i| is_leg(i)).count();
    if mean.norm() >= SPREAD || 2 * standing >= group.len() {
        return;
    }
    mark(&group, limbs, Kind::Tentacle, free, kind);
    // The main hub holds the most tentacles; the others are where tentacles touch in the view.
    let mut hubs: Vec<usize> = group.iter().map(|&i| limbs[i].hub).collect();
    hubs.sort_unstable();
    let main = hubs
        .chunk_by(|a, b| a == b)
        .max_by_key(|c| c.len())
        .map(|c| c[0]);
    let alike: Vec<usize> = (0..limbs.len())
        .filter(|&i| free[i] && Some(limbs[i].hub) != main && hubs.contains(&limbs[i].hub))
        .collect();
    mark(&alike, limbs, Kind::Tentacle, free, kind);
}

/// Rule 2.
pub(super) fn legs(limbs: &[Limb], ground: &Ground, free: &mut [bool], kind: &mut [Kind]) {
    let legs: Vec<usize> = (0..limbs.len())
        .filter(|&i| free[i])
        .filter(|&i| limbs[i].dir.dot(&ground.down) >= LEG_COS && ground.on_ground(&limbs[i].tip))
        .collect();
    if legs.len() >= 2 {
        mark(&legs, limbs, Kind::Leg, free, kind);
    }
}

/// Rule 4.
pub(super) fn fingers(limbs: &[Limb], free: &mut [bool], kind: &mut [Kind]) {
    let mut hubs: Vec<usize> = limbs.iter().map(|l| l.hub).collect();
    hubs.dedup();
    for hub in hubs {
        let at: Vec<usize> = (0..limbs.len())
            .filter(|&i| free[i] && limbs[i].hub == hub)
            .collect();
        if at.len() < 3 {
            continue;
        }
        let m = median(at.iter().map(|&i| limbs[i].len).collect());
        let mean = at.iter().fold(V3::zeros(), |a, &i| a + limbs[i].dir);
        let mean = mean / mean.norm().max(1e-12);
        let group: Vec<usize> = at
            .into_iter()
            .filter(|&i| similar(limbs[i].len, m) && limbs[i].dir.dot(&mean) >= PARALLEL_COS)
            .collect();
        if group.len() >= 3 {
            mark(&group, limbs, Kind::Finger, free, kind);
        }
    }
}

/// Rule 1; returns the claws' directions (from the chain's start to the pincer).
pub(super) fn claws(g: &Graph, limbs: &[Limb], free: &mut [bool], kind: &mut [Kind]) -> Vec<V3> {
    let mut out = Vec::new();
    for v in (0..g.pos.len()).filter(|&v| g.adj[v].len() == 3) {
        let fingers: Vec<usize> = (0..limbs.len())
            .filter(|&i| free[i] && limbs[i].hub == v)
            .collect();
        if fingers.len() != 2
            || !similar(limbs[fingers[0]].len, limbs[fingers[1]].len)
            || limbs[fingers[0]].dir.dot(&limbs[fingers[1]].dir) < PINCER_COS
        {
            continue;
        }
        let Some(&(first, branch, l)) = g.adj[v]
            .iter()
            .find(|e| fingers.iter().all(|&i| limbs[i].branch != e.1))
        else {
            continue;
        };
        let (mut prev, mut cur, mut len) = (v, first, l);
        while g.adj[cur].len() == 2 {
            let &(next, _, l) = g.adj[cur].iter().find(|e| e.0 != prev).expect("deg 2");
            (prev, cur, len) = (cur, next, len + l);
        }
        if g.adj[cur].len() >= 3 && fingers.iter().all(|&i| limbs[i].len < PINCER * len) {
            mark(&fingers, limbs, Kind::Claw, free, kind);
            kind[branch] = Kind::Claw;
            let d = g.pos[v] - g.pos[cur];
            out.push(d / d.norm().max(1e-12));
        }
    }
    out
}

/// Rule 5.
pub(super) fn tail(limbs: &[Limb], claws: &[V3], down: V3, free: &[bool], kind: &mut [Kind]) {
    let cand = (0..limbs.len())
        .filter(|&i| free[i] && limbs[i].dir.dot(&down) < TAIL_DOWN_COS)
        .filter(|&i| {
            let c = &limbs[i];
            // A head is short and thick, a tail at least as long (a wrist is shorter than the
            // thumb it points away from).
            let from_head = (0..limbs.len()).any(|o| {
                free[o]
                    && o != i
                    && limbs[o].r >= THICKER * c.r
                    && limbs[o].len <= c.len
                    && limbs[o].dir.dot(&c.dir) <= OPPOSITE_COS
            });
            // A tail is single: an arm pointing away from the head has its mirror twin.
            let paired = (0..limbs.len()).any(|o| {
                free[o]
                    && o != i
                    && limbs[o].hub == c.hub
                    && limbs[o].len <= PAIR * c.len
                    && c.len <= PAIR * limbs[o].len
                    && limbs[o].r < THICKER * c.r
                    && c.r < THICKER * limbs[o].r
            });
            !paired && (from_head || claws.iter().any(|d| d.dot(&c.dir) <= OPPOSITE_COS))
        })
        .max_by(|&a, &b| limbs[a].len.total_cmp(&limbs[b].len));
    if let Some(i) = cand {
        kind[limbs[i].branch] = Kind::Tail;
    }
}
