//! The matrix half of the heat system — cotangent stiffness `L_c`, lumped masses `M` and the
//! sparse LLᵀ's symbolic analysis (AMD ordering) — which depends only on the mesh and on which
//! vertices are diffused, never on the bones (Baran & Popović 2007 §4;
//! docs/algorithms.md#skin-heat-diffusion).
//!
//! On big meshes the AMD ordering is the largest single cost of skinning, and it needs no heat
//! source. So [`super::skin_with_sdf`] builds this part for the *likely* diffused set (every
//! shell big enough to diffuse over) on one thread while the heat sources are computed on the
//! other, and uses it only if the diffused set turns out to be exactly that set (the usual case:
//! every shell sees a bone). Otherwise it is rebuilt for the actual set. Either way the matrix,
//! its pattern and so the factor are the ones a fresh build gives, bit for bit.

use std::sync::Mutex;
use std::time::Instant;

use super::laplacian::{one_ring_areas, stiffness, SymCsc, NOT_IN_SYSTEM};
use super::shells::{shell_vertex_lists, MIN_HEAT_SHELL};
use super::solve::SpdPattern;
use crate::mesh::PreparedMesh;
use crate::util::ms_since;

/// `L_c`, `M` and the symbolic analysis over one list of welded vertices (row r = `verts[r]`).
#[derive(Clone, Debug)]
pub struct HeatSystem {
    /// The diffused welded vertices, in row order.
    pub verts: Vec<u32>,
    /// Cotangent stiffness over `verts` (diagonal always stored).
    pub stiffness: SymCsc,
    /// Lumped one-ring areas per row.
    pub mass: Vec<f64>,
    /// Symbolic analysis of `stiffness`'s pattern, or why it failed.
    pub pattern: Result<SpdPattern, String>,
    /// Time of the symbolic analysis, ms.
    pub analyze_ms: f64,
}

impl HeatSystem {
    /// Assemble and analyze the system over `verts` of `mesh` (normalized frame).
    pub fn build(mesh: &PreparedMesh, verts: Vec<u32>) -> Self {
        let mut row = vec![NOT_IN_SYSTEM; mesh.positions.len()];
        for (r, &v) in verts.iter().enumerate() {
            row[v as usize] = r as u32;
        }
        let n = verts.len();
        let stiffness = stiffness(&mesh.positions, &mesh.triangles, &row, n);
        let mass = one_ring_areas(&mesh.positions, &mesh.triangles, &row, n);
        // The heat term only adds to the diagonal, which `stiffness` always stores: the final
        // matrix has this pattern.
        let t = Instant::now();
        let pattern = if n == 0 {
            Err("empty system".into())
        } else {
            SpdPattern::analyze(&stiffness)
        };
        Self {
            verts,
            stiffness,
            mass,
            pattern,
            analyze_ms: ms_since(t),
        }
    }

    /// This system if it was built over exactly `verts`, else a fresh one over `verts`.
    pub fn reuse_or_build(speculative: Option<Self>, mesh: &PreparedMesh, verts: &[u32]) -> Self {
        match speculative {
            Some(s) if s.verts == verts => s,
            _ => Self::build(mesh, verts.to_vec()),
        }
    }
}

/// One mesh's [`HeatSystem`] over its likely diffused set, kept between rigs of the same mesh
/// (the watcher's hint re-runs): the system depends on the mesh alone, so a re-run clones it
/// instead of assembling and ordering it again — the same matrix and ordering, bit for bit.
/// A [`SystemCache::once`] cache instead hands its system over on first use (a one-off rig that
/// built it ahead, beside the discretization).
#[derive(Debug, Default)]
pub struct SystemCache {
    kept: Mutex<Option<HeatSystem>>,
    once: bool,
}

impl SystemCache {
    /// A cache that gives `system` away to the first [`get`](Self::get) it matches and keeps
    /// nothing it is given.
    pub fn once(system: HeatSystem) -> Self {
        Self {
            kept: Mutex::new(Some(system)),
            once: true,
        }
    }

    /// The kept system if it was built over exactly `verts` (a copy, unless `once`).
    pub fn get(&self, verts: &[u32]) -> Option<HeatSystem> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if self.once {
            return kept.take_if(|s| s.verts == verts);
        }
        let mut s = kept.as_ref().filter(|s| s.verts == verts).cloned()?;
        s.analyze_ms = 0.0; // not analyzed again
        Some(s)
    }

    /// True once a system is kept.
    pub fn holds(&self) -> bool {
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Keep a copy of `system` (replacing any other); nothing for a `once` cache.
    pub fn put(&self, system: &HeatSystem) {
        if !self.once {
            *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(system.clone());
        }
    }
}

/// The heat system over `mesh`'s likely diffused set: what [`super::skin_with_sdf`] builds
/// first, so building it ahead (beside the discretization, which does not need it) and handing it
/// over in a [`SystemCache::once`] gives the same weights, bit for bit.
pub fn likely_system(mesh: &PreparedMesh) -> HeatSystem {
    HeatSystem::build(mesh, likely_set(mesh))
}

/// The likely diffused set of `mesh` ([`likely_heat_vertices`] over its shells).
pub(super) fn likely_set(mesh: &PreparedMesh) -> Vec<u32> {
    likely_heat_vertices(&shell_vertex_lists(mesh), MIN_HEAT_SHELL)
}

/// The vertices heat diffusion most likely runs over: those of every shell with at least
/// `min_shell` vertices, in shell order (the order [`super::skin_with_sdf`] lists them in).
pub fn likely_heat_vertices(shells: &[Vec<u32>], min_shell: usize) -> Vec<u32> {
    shells
        .iter()
        .filter(|s| s.len() >= min_shell)
        .flat_map(|s| s.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::P3;
    use crate::mesh::prepare;
    use crate::skin::shell_vertex_lists;

    /// Two closed tetrahedra (4 vertices each) and one lone triangle (3 vertices).
    fn shells() -> PreparedMesh {
        let mut m = crate::skin::rigid::tests::two_tetrahedra();
        let base = m.positions.len() as u32;
        m.positions.extend([
            P3::new(9.0, 0.0, 0.0),
            P3::new(10.0, 0.0, 0.0),
            P3::new(9.0, 1.0, 0.0),
        ]);
        m.triangles.push([base, base + 1, base + 2]);
        prepare(m).unwrap()
    }

    fn same(a: &HeatSystem, b: &HeatSystem) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        a.verts == b.verts
            && a.stiffness.col_ptr == b.stiffness.col_ptr
            && a.stiffness.row_idx == b.stiffness.row_idx
            && bits(&a.stiffness.values) == bits(&b.stiffness.values)
            && bits(&a.mass) == bits(&b.mass)
    }

    #[test]
    fn a_once_cache_hands_its_system_over_to_the_first_match_only() {
        let mesh = shells();
        let likely = likely_set(&mesh);
        let cache = SystemCache::once(likely_system(&mesh));
        assert!(
            cache.get(&likely[..4]).is_none(),
            "another set: not handed over"
        );
        cache.put(&HeatSystem::build(&mesh, likely[..4].to_vec()));
        let got = cache.get(&likely).expect("the matching set takes it");
        assert!(same(&got, &HeatSystem::build(&mesh, likely.clone())));
        assert!(
            cache.get(&likely).is_none() && !cache.holds(),
            "given away, not copied"
        );
    }

    #[test]
    fn likely_set_skips_small_shells_and_is_reused_only_when_it_matches() {
        let mesh = shells();
        let lists = shell_vertex_lists(&mesh);
        let likely = likely_heat_vertices(&lists, 4);
        assert_eq!(likely.len(), 8, "the lone triangle is not diffused over");
        let speculative = HeatSystem::build(&mesh, likely.clone());
        assert!(speculative.pattern.is_ok());
        // The diffused set turned out as guessed: the speculative system is the fresh one.
        let reused = HeatSystem::reuse_or_build(Some(speculative.clone()), &mesh, &likely);
        assert!(same(&reused, &HeatSystem::build(&mesh, likely.clone())));
        // Only the first shell sees a bone: rebuilt over that shell alone.
        let first: Vec<u32> = likely[..4].to_vec();
        let rebuilt = HeatSystem::reuse_or_build(Some(speculative), &mesh, &first);
        assert_eq!(rebuilt.verts, first);
        assert_eq!(rebuilt.stiffness.n, 4);
        assert!(same(&rebuilt, &HeatSystem::build(&mesh, first)));
    }
}
