//! The shared measurements of the shape rules in [`super`]: the limbs (junction-to-leaf chains)
//! with their length, mean radius and direction, the ground band, and similar lengths.

use super::{Graph, Kind, GROUND_BAND, SIMILAR};
use crate::geom::{P3, V3};

/// A chain from a junction to a leaf tip.
#[derive(Clone, Debug)]
pub(super) struct Limb {
    pub(super) hub: usize,
    pub(super) branch: usize,
    pub(super) len: f64,
    pub(super) r: f64,
    pub(super) dir: V3,
    pub(super) tip: P3,
}

/// The down direction and the ground band's top (heights measured along `down`).
pub(super) struct Ground {
    pub(super) down: V3,
    band_top: f64,
}

impl Ground {
    pub(super) fn of(g: &Graph, down: V3) -> Self {
        let h = g.pos.iter().map(|p| p.coords.dot(&down));
        let (lo, hi) = h.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        Self {
            down,
            band_top: hi - GROUND_BAND * (hi - lo),
        }
    }

    pub(super) fn on_ground(&self, p: &P3) -> bool {
        p.coords.dot(&self.down) >= self.band_top
    }
}

/// Every junction-to-leaf chain.
pub(super) fn limbs(g: &Graph) -> Vec<Limb> {
    let mut out = Vec::new();
    for v in (0..g.pos.len()).filter(|&v| g.adj[v].len() >= 3) {
        for &(first, branch, l) in &g.adj[v] {
            let (mut prev, mut cur, mut len) = (v, first, l);
            let mut rs = vec![g.r[cur]];
            while g.adj[cur].len() == 2 {
                let &(next, _, l) = g.adj[cur].iter().find(|e| e.0 != prev).expect("deg 2");
                (prev, cur, len) = (cur, next, len + l);
                rs.push(g.r[cur]);
            }
            if g.adj[cur].len() == 1 {
                let d = g.pos[cur] - g.pos[v];
                out.push(Limb {
                    hub: v,
                    branch,
                    len,
                    r: rs.iter().sum::<f64>() / rs.len() as f64,
                    dir: d / d.norm().max(1e-12),
                    tip: g.pos[cur],
                });
            }
        }
    }
    out
}

pub(super) fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x.get(x.len() / 2).copied().unwrap_or(0.0)
}

pub(super) fn similar(len: f64, m: f64) -> bool {
    len <= SIMILAR * m && len * SIMILAR >= m
}

pub(super) fn mark(ids: &[usize], limbs: &[Limb], k: Kind, free: &mut [bool], kind: &mut [Kind]) {
    for &i in ids {
        free[i] = false;
        kind[limbs[i].branch] = k;
    }
}
