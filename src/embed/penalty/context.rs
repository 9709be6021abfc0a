//! The penalty context for one orientation (Baran & Popović 2007 §3.3): sphere centres moved into the
//! template frame, radii, neighbours, Γ, candidate sets, the reduced joints' common ancestors, and the
//! user's hints on chains (pins, see [`crate::embed::pins`]).

use super::{unit, Ctx};
use crate::discretize::SphereGraph;
use crate::embed::paths::Paths;
use crate::embed::pins::{path_meets, ChainHint, PathPin};
use crate::embed::reduced::Reduced;
use crate::embed::Orientation;
use crate::geom::V3;

impl<'a> Ctx<'a> {
    /// The context for embedding `red` in `graph` seen through orientation `o`: sphere centres are
    /// moved to the template frame (centred on the unit cube, then rotated), so FootPF's "y" is the
    /// template's up; the graph is rotated, never the template.
    pub fn from_graph(
        red: &'a Reduced,
        paths: &'a Paths,
        graph: &SphereGraph,
        o: &Orientation,
        weights: [f64; 9],
        cand: Vec<Vec<u32>>,
    ) -> Self {
        let half = V3::new(0.5, 0.5, 0.5);
        let pos = graph
            .spheres
            .iter()
            .map(|s| o.apply(&(s.center.coords - half)))
            .collect();
        let rad = graph.spheres.iter().map(|s| s.radius).collect();
        let nbrs = (0..graph.len())
            .map(|i| {
                graph
                    .edges
                    .get(i)
                    .map_or(Vec::new(), |l| l.iter().map(|(n, _)| n.0).collect())
            })
            .collect();
        Self::new(red, paths, pos, rad, nbrs, weights, cand)
    }

    /// Build the context: `pos` are the template-frame centres, one per graph vertex.
    fn new(
        red: &'a Reduced,
        paths: &'a Paths,
        pos: Vec<V3>,
        rad: Vec<f64>,
        nbrs: Vec<Vec<u32>>,
        weights: [f64; 9],
        cand: Vec<Vec<u32>>,
    ) -> Self {
        let foot_base = pos.iter().map(|p| p.y).fold(1.0_f64, f64::min);
        let k = red.len();
        let mut lca = vec![0; k * k];
        for i in 0..k {
            for j in 0..k {
                let (mut a, mut b) = (i, j);
                while a != b {
                    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
                    a = red.joints[hi].parent.unwrap_or(0);
                    b = lo;
                }
                lca[i * k + j] = a;
            }
        }
        let rest_dirs = (0..k * k)
            .map(|ij| unit(red.joints[ij / k].rest - red.joints[ij % k].rest))
            .collect();
        Self {
            red,
            paths,
            pos,
            rad,
            nbrs,
            foot_base,
            weights,
            cand,
            lca,
            rest_dirs,
            rows: Default::default(),
            pins: Vec::new(),
            pinned: vec![false; k],
        }
    }

    /// Add the hints that lie inside chains; `o` maps the normalized frame to the search frame.
    pub fn with_pins(mut self, hints: &[ChainHint], o: &crate::embed::Orientation) -> Self {
        let half = V3::new(0.5, 0.5, 0.5);
        self.pins = hints
            .iter()
            .map(|h| PathPin {
                idx: h.idx,
                fraction: h.fraction,
                at: o.apply(&(h.position.coords - half)),
                radius: h.radius,
                extend: h.extend,
            })
            .collect();
        for p in &self.pins {
            if let Some(slot) = self.pinned.get_mut(p.idx) {
                *slot = true;
            }
        }
        self
    }

    /// The unit template direction from reduced joint `j` to `i`.
    #[inline]
    pub(super) fn rest_dir(&self, i: usize, j: usize) -> V3 {
        self.rest_dirs[i * self.red.len() + j]
    }

    /// True unless the chain of `idx` placed from `pv` to `next` misses one of its pins.
    pub(super) fn pins_met(&self, idx: usize, pv: u32, next: u32) -> bool {
        let mut pins = self.pins.iter().filter(|p| p.idx == idx).peekable();
        if pins.peek().is_none() {
            return true;
        }
        let mut verts = self.paths.path(next, pv);
        verts.reverse();
        let path: Vec<V3> = verts.iter().map(|v| self.pos[*v as usize]).collect();
        let radii: Vec<f64> = verts.iter().map(|v| self.rad[*v as usize]).collect();
        pins.all(|p| path_meets(&path, &radii, p))
    }
}
