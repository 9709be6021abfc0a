//! The editing session: a skinned rig on its mesh, the per-joint controls, and the one entry
//! [`Session::apply`] for every edit. The session state and its queries live here; the edits
//! themselves in [`apply`], the region search in [`regions`], the re-solve and its bookkeeping
//! (settle passes, drags, patches, heat-source flags, renumbering) in [`resolve`].

mod apply;
mod regions;
mod resolve;

use serde::Serialize;

use super::cache::FactorCache;
use super::drag::Drag;
use super::local::SolveTimes;
use super::region::Adjacency;
use super::{Control, EditError};
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::{RigJoint, SkinTable};
use crate::skin::bones::{self, Bone};
use crate::skin::laplacian::{one_ring_areas, stiffness, SymCsc, NOT_IN_SYSTEM};
use crate::skin::{shell_vertex_lists, ShellBinding, Skin, SkinOptions};

/// Extra region searches after a solve whose watched weights are still non-zero on the region's
/// border (the "settle" pass of facts §9.4: an edit that widens an influence wants more room).
const SETTLE_PASSES: usize = 2;

/// Default zero threshold of the region search. On a 27k-vertex human a forearm move re-solved
/// with 1e-2 agreed with the global solve to 3e-4 (the watched weights are already tiny where the
/// border is cut), with a region 3× smaller than at the prune level 1e-4 (bench/results.md).
pub const REGION_EPS: f64 = 1e-2;

/// Refuse a zero threshold of the region search outside [`prune`, 1): below the prune level
/// weights are stored as exact zeros (a smaller one changes nothing), and weights are at most 1
/// (from there every weight "vanishes" and the border error is the whole weight). `inf`, NaN and
/// negative values used to be taken without a word: NaN and negatives silently became the prune
/// level, `inf` a region that ignored the edit's reach.
pub fn check_eps(eps: f64, prune: f64) -> Result<(), EditError> {
    if eps.is_finite() && eps >= prune && eps < 1.0 {
        return Ok(());
    }
    Err(EditError::Refused {
        op: "eps",
        reason: format!(
            "{eps} is not a zero threshold: it must be a number from the prune level {prune:e} \
             up to (not including) 1"
        ),
    })
}

/// A skinned rig being edited. Borrows the mesh and its signed distance (normalized frame).
#[derive(Clone)]
pub struct Session<'a> {
    pub(super) mesh: &'a PreparedMesh,
    pub(super) sdf: &'a (dyn Fn(&P3) -> f64 + Sync),
    /// Joints, mesh frame, parent-first.
    pub joints: Vec<RigJoint>,
    /// Per-joint weight controls, parallel to `joints`.
    pub controls: Vec<Control>,
    pub(super) opts: SkinOptions,
    /// Welded vertex normals when the skin's distances are oriented ([`crate::skin::surface_normals`]).
    pub(super) normals: Option<Vec<crate::geom::V3>>,
    /// Per welded vertex weights (joint, weight), heaviest first.
    pub(super) rows: Vec<Vec<(u32, f64)>>,
    /// Per welded vertex raw heat solution (before clip/prune/renormalize): the boundary values a
    /// local solve freezes, so that re-solving with unchanged parameters reproduces the global
    /// solution (the plain solver's post-processing is not a solution of the system near ties).
    pub(super) raw: Vec<Vec<(u32, f64)>>,
    /// Per input vertex weights of vertices outside heat shells (rigid shells, loose vertices).
    input_rows: SkinTable,
    /// Welded vertices of the heat system, in the plain solver's row order.
    pub(super) heat_verts: Vec<u32>,
    /// Welded vertex → heat row (`NOT_IN_SYSTEM` outside).
    pub(super) row_of: Vec<u32>,
    k: SymCsc,
    pub(super) mass: Vec<f64>,
    adj: Adjacency,
    region_of: Vec<u32>,
    /// Vertices of every corresponding region.
    members: Vec<Vec<u32>>,
    /// Region search time not yet reported in an outcome, ms.
    search_ms: f64,
    /// Replay mode: edits change joints and controls only; the caller solves globally once.
    pub(super) defer: bool,
    /// Zero threshold of the region search.
    eps: f64,
    /// Cached heat source of every welded vertex, valid for the bones of `bones_cached` except
    /// those flagged in `dirty` (changed since; `None`: all stale, e.g. after a hierarchy change).
    pub(super) sources: Vec<Option<crate::skin::heat::Source>>,
    bones_cached: Vec<Bone>,
    pub(super) dirty: Option<Vec<bool>>,
    /// Factorizations kept for regions that repeat.
    cache: FactorCache,
    /// The region frozen for the current drag.
    drag: Option<Drag>,
    /// Vertices re-solved by the last edit (all passes) and the columns recomputed there.
    last_region: Vec<u32>,
    last_columns: Vec<u32>,
}

/// What one edit did, for rig.json `timings_ms`, the CLI and the UI's status line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EditOutcome {
    /// The edit.
    pub op: String,
    /// Vertices re-solved (d) and heat vertices in all (m).
    pub region: usize,
    /// Heat-system vertices of the mesh.
    pub vertices: usize,
    /// Weight columns recomputed.
    pub columns: usize,
    /// Solves run (1 + settle passes).
    pub passes: usize,
    /// True when the whole mesh was solved (re-root, or [`Session::global`]).
    pub global: bool,
    /// The zero threshold of the region search.
    pub eps: f64,
    /// Region search, ms.
    pub region_ms: f64,
    /// Solve phases, ms.
    #[serde(skip)]
    pub times: SolveTimes,
    /// Whole edit, ms.
    pub total_ms: f64,
    /// Up-vector shared by an aligned chain (mesh frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<[f64; 3]>,
}

/// The welded vertices of the skin's heat-diffused shells, shell by shell: the unknowns of the
/// heat system (rigid shells, parts and props keep their rows).
fn heat_vertices(mesh: &PreparedMesh, skin: &Skin) -> Vec<u32> {
    let shells = shell_vertex_lists(mesh);
    skin.shells
        .iter()
        .filter_map(|s| match s {
            ShellBinding::Heat { shell, .. } => shells.get(*shell),
            ShellBinding::Rigid { .. } | ShellBinding::Part { .. } | ShellBinding::Prop { .. } => {
                None
            }
        })
        .flat_map(|s| s.iter().copied())
        .collect()
}

/// The skin's rows per welded vertex (each from an input vertex welded into it; the last wins).
fn welded_rows(mesh: &PreparedMesh, skin: &Skin) -> Vec<Vec<(u32, f64)>> {
    let mut rows = vec![Vec::new(); mesh.positions.len()];
    for (i, row) in skin.weights.iter().enumerate() {
        if let Some(w) = mesh.weld.get(i).and_then(|&w| rows.get_mut(w as usize)) {
            *w = row.clone();
        }
    }
    rows
}

impl<'a> Session<'a> {
    /// A session on `skin` (the plain solver's result for `joints` on `mesh`: its shell treatment
    /// and the rows of rigid shells are kept). The heat weights are solved once globally here, to
    /// keep the raw solution as boundary values. `sdf` is the signed distance in the normalized
    /// frame used by the skin (visibility, leaf extension).
    pub fn new(
        mesh: &'a PreparedMesh,
        sdf: &'a (dyn Fn(&P3) -> f64 + Sync),
        joints: Vec<RigJoint>,
        skin: &Skin,
        opts: SkinOptions,
    ) -> Result<Self, EditError> {
        if skin.weights.len() != mesh.input.positions.len() {
            return Err(EditError::NoSkin(format!(
                "{} weight rows for {} vertices",
                skin.weights.len(),
                mesh.input.positions.len()
            )));
        }
        let heat_verts = heat_vertices(mesh, skin);
        let mut row_of = vec![NOT_IN_SYSTEM; mesh.positions.len()];
        for (r, &v) in heat_verts.iter().enumerate() {
            row_of[v as usize] = r as u32;
        }
        let n = heat_verts.len();
        let rows = welded_rows(mesh, skin);
        let mut s = Self {
            mesh,
            sdf,
            controls: vec![Control::default(); joints.len()],
            joints,
            opts: opts.clone(),
            normals: crate::skin::surface_normals(mesh, &opts),
            raw: vec![Vec::new(); rows.len()],
            rows,
            input_rows: skin.weights.clone(),
            k: stiffness(&mesh.positions, &mesh.triangles, &row_of, n),
            mass: one_ring_areas(&mesh.positions, &mesh.triangles, &row_of, n),
            heat_verts,
            row_of,
            adj: Adjacency::new(mesh.positions.len(), &mesh.triangles),
            region_of: Vec::new(),
            members: Vec::new(),
            search_ms: 0.0,
            defer: false,
            eps: REGION_EPS.max(opts.prune),
            sources: vec![None; mesh.positions.len()],
            bones_cached: Vec::new(),
            dirty: None,
            cache: FactorCache::default(),
            drag: None,
            last_region: Vec::new(),
            last_columns: Vec::new(),
        };
        s.rebuild_regions();
        s.global()?;
        Ok(s)
    }

    /// The zero threshold for "a weight vanishes" ([`REGION_EPS`] unless set; facts §3.2, §9.3).
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// Set the zero threshold of the region search ([`check_eps`]). A larger one gives smaller
    /// regions and a border error of about that size (facts §9.3).
    pub fn set_eps(&mut self, eps: f64) -> Result<(), EditError> {
        check_eps(eps, self.opts.prune)?;
        self.eps = eps;
        Ok(())
    }

    /// Weight of joint `col` at welded vertex `v`.
    pub fn weight(&self, v: usize, col: u32) -> f64 {
        self.rows[v]
            .iter()
            .find(|e| e.0 == col)
            .map_or(0.0, |e| e.1)
    }

    /// Raw heat solution of joint `col` at welded vertex `v`.
    pub(super) fn raw_weight(&self, v: usize, col: u32) -> f64 {
        self.raw[v].iter().find(|e| e.0 == col).map_or(0.0, |e| e.1)
    }

    /// Weights per welded vertex.
    pub fn welded_rows(&self) -> &[Vec<(u32, f64)>] {
        &self.rows
    }

    /// Raw heat solution per welded vertex (before clipping, pruning and renormalizing).
    pub fn raw_rows(&self) -> &[Vec<(u32, f64)>] {
        &self.raw
    }

    /// The proxy corresponding region of every welded vertex (`u32::MAX` outside heat shells).
    pub fn regions(&self) -> &[u32] {
        &self.region_of
    }

    /// The welded vertices the last edit re-solved (sorted; every vertex for a global solve):
    /// weights elsewhere were left bit-identical (facts §10.3).
    pub fn last_region(&self) -> &[u32] {
        &self.last_region
    }

    /// The weight columns (joints) the last edit re-solved or re-finished on its region (sorted);
    /// every other column is unchanged everywhere.
    pub fn last_columns(&self) -> &[u32] {
        &self.last_columns
    }

    /// Drop the cached factorizations (memory; results never depend on the cache).
    pub fn clear_cache(&mut self) {
        self.cache = FactorCache::default();
    }

    /// Skin weights per **input** vertex, as rig.json holds them.
    pub fn skin_table(&self) -> SkinTable {
        (0..self.mesh.input.positions.len())
            .map(|i| {
                let w = self.mesh.weld.get(i).map_or(usize::MAX, |&w| w as usize);
                match self.row_of.get(w) {
                    Some(&r) if r != NOT_IN_SYSTEM => self.rows[w].clone(),
                    _ => self.input_rows[i].clone(),
                }
            })
            .collect()
    }

    /// Column `r` of the stiffness matrix: (row, value) pairs, diagonal included.
    pub(super) fn k_column(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (lo, hi) = (self.k.col_ptr[r], self.k.col_ptr[r + 1]);
        self.k.row_idx[lo..hi]
            .iter()
            .copied()
            .zip(self.k.values[lo..hi].iter().copied())
    }

    /// The heat-emitting segments between the joints' handles (virtual bones, facts §5.1),
    /// normalized frame. With every handle on its joint these are the plain solver's bones.
    pub fn virtual_bones(&self) -> Vec<Bone> {
        bones::bones(&self.joint_tuples(true), self.sdf, Some(self.surface()))
    }

    /// The welded surface, for the leaves' first ray hit ([`bones::Surface`]).
    fn surface(&self) -> bones::Surface<'_> {
        bones::Surface {
            positions: &self.mesh.positions,
            triangles: &self.mesh.triangles,
        }
    }

    fn joint_tuples(&self, handles: bool) -> Vec<(P3, Option<usize>, bool)> {
        let norm = &self.mesh.normalization;
        self.joints
            .iter()
            .zip(&self.controls)
            .map(|(j, c)| {
                let off = if handles {
                    V3::from(c.handle)
                } else {
                    V3::zeros()
                };
                (norm.to_normalized(&(j.point() + off)), j.parent, j.end)
            })
            .collect()
    }
}
