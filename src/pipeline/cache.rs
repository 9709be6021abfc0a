//! The discretization cache of [`Pipeline`]: prepared meshes and their discretizations keyed by
//! mesh content and options, so a hint re-run starts at the embedding; beside each entry, the
//! heat system the skin stage kept for that mesh ([`SystemCache`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::{prepare, run_stage, Discretized, Pipeline, RigRequest};
use crate::config::RigConfig;
use crate::discretize::{self, Discretization};
use crate::error::RigError;
use crate::mesh::{self, PreparedMesh};
use crate::progress::{Progress, Stage};
use crate::skin::{likely_system, SystemCache};

/// How many meshes' discretizations the cache keeps.
pub(super) const CACHE_CAPACITY: usize = 16;

/// One cache entry: key, prepared mesh, discretization, the mesh's kept heat system.
pub(super) type Cached = (
    u64,
    Arc<PreparedMesh>,
    Arc<Discretization>,
    Arc<SystemCache>,
);

/// The cache key of a mesh's finer discretization ([`super::finer`]) from the mesh's own key:
/// another entry of the same cache, so a hint re-run of a rig that needed it starts at the
/// embedding too. The salt only has to differ from every content key (a 64-bit hash).
pub(super) fn finer_key(key: u64) -> u64 {
    key ^ 0x9e37_79b9_7f4a_7c15
}

impl Pipeline {
    pub(super) fn cache_get(&self, key: u64) -> Option<(Arc<PreparedMesh>, Arc<Discretization>)> {
        if self.one_shot {
            return None;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let pos = cache.iter().position(|c| c.0 == key)?;
        let entry = cache.remove(pos);
        let found = (entry.1.clone(), entry.2.clone());
        cache.push(entry); // most recently used last
        Some(found)
    }

    pub(super) fn cache_put(
        &self,
        key: u64,
        prepared: Arc<PreparedMesh>,
        disc: Arc<Discretization>,
    ) {
        if self.one_shot {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|c| c.0 != key);
        if cache.len() >= CACHE_CAPACITY {
            cache.remove(0);
        }
        cache.push((key, prepared, disc, Arc::default()));
    }

    /// Load, prepare and discretize `path`, or take both from the cache. Returns the timings of the
    /// stages actually run and whether the cache was used.
    pub fn discretized(
        &self,
        path: &Path,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Discretized, RigError> {
        let (mesh, source, key) = self.load(path, progress, timings)?;
        if let Some((prepared, disc)) = self.cache_get(key) {
            return Ok((prepared, disc, true, source));
        }
        let prepared = Arc::new(prepare(path, mesh, progress, timings)?);
        let disc = self.discretize_stage(path, key, &prepared, progress, timings)?;
        Ok((prepared, disc, false, source))
    }

    /// Discretize `prepared` (key: its cache key) and cache both.
    pub(super) fn discretize_stage(
        &self,
        path: &Path,
        key: u64,
        prepared: &Arc<PreparedMesh>,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Arc<Discretization>, RigError> {
        let disc = discretize::discretize(prepared, &self.config.discretize, progress).map_err(
            |source| RigError::Discretize {
                path: path.to_path_buf(),
                source,
            },
        )?;
        for (name, ms) in &disc.timings_ms {
            timings.insert((*name).to_string(), *ms);
        }
        let disc = Arc::new(disc);
        self.cache_put(key, prepared.clone(), disc.clone());
        Ok(disc)
    }

    /// The discretize stage of a one-off rig ([`Self::discretize_stage`]) and, when it is skinned,
    /// the heat system the skin stage will use, built beside it. The system depends on the
    /// prepared mesh alone; built on the other core while the field's parallel work fills in
    /// around it, its serial parts (stiffness, AMD ordering: about a second of one core on a
    /// 922k-triangle mesh) leave the critical path. Beside the embedding (before), they ran
    /// nearly alone on big meshes, whose embedding takes a few ms. Same system, so the same
    /// weights, bit for bit, on any number of threads. A re-run of a cached mesh takes the system
    /// its cache entry keeps instead ([`Self::heat_cache`]).
    pub(super) fn discretize_and_heat(
        &self,
        req: &RigRequest,
        key: u64,
        prepared: &Arc<PreparedMesh>,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> (
        Result<Arc<Discretization>, RigError>,
        Option<Arc<SystemCache>>,
    ) {
        rayon::join(
            || self.discretize_stage(&req.mesh_path, key, prepared, progress, timings),
            || {
                req.skin
                    .then(|| Arc::new(SystemCache::once(likely_system(prepared))))
            },
        )
    }

    /// Load `path` (the load stage): the mesh, the file's own document (glTF, textured OBJ, FBX) and the cache key (mesh content and discretization options).
    pub(super) fn load(
        &self,
        path: &Path,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<(mesh::Mesh, Option<Arc<mesh::load::SourceDocument>>, u64), RigError> {
        let loaded = run_stage(progress, Stage::Load, timings, || {
            let (loaded, companions) = mesh::load::load_tracked(path);
            loaded.map_err(|source| RigError::Load {
                path: path.to_path_buf(),
                source,
                companions,
            })
        })?;
        let (mesh, source) = (loaded.mesh, loaded.source.map(Arc::new));
        // A one-shot pipeline looks nothing up: its key is never used.
        let key = if self.one_shot {
            0
        } else {
            mesh.content_hash() ^ options_hash(&self.config)
        };
        Ok((mesh, source, key))
    }

    /// The load stage of [`Self::rig_noting`], putting in `seen` what it read besides the mesh
    /// (also when it fails) and the edits sidecar, which the skin stage replays: a hand-saved
    /// one re-rigs like a companion (its stat taken before the read, as the loader does).
    pub(super) fn load_noting(
        &self,
        req: &RigRequest,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
        seen: &mut Vec<mesh::load::Companion>,
    ) -> Result<(mesh::Mesh, Option<Arc<mesh::load::SourceDocument>>, u64), RigError> {
        let edits = req.skin.then(|| {
            let file = crate::edit::sidecar::sidecar_path(&req.mesh_path);
            let stat = mesh::load::FileStat::of(&file);
            mesh::load::Companion { path: file, stat }
        });
        let loaded = self.load(&req.mesh_path, progress, timings);
        match &loaded {
            Ok((_, Some(source), _)) => seen.clone_from(&source.companions),
            Err(RigError::Load { companions, .. }) => seen.clone_from(companions),
            _ => seen.clear(),
        }
        seen.extend(edits);
        loaded
    }

    /// The heat-system slot of the cached mesh `key` (None if it is no longer cached).
    pub(super) fn heat_cache(&self, key: u64) -> Option<Arc<SystemCache>> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.iter().find(|c| c.0 == key).map(|c| c.3.clone())
    }
}

/// Discretization depends on these options too, so they are part of the cache key.
fn options_hash(config: &RigConfig) -> u64 {
    let d = &config.discretize;
    d.tolerance.to_bits().rotate_left(7)
        ^ u64::from(d.max_depth).rotate_left(29)
        ^ (d.max_spheres as u64).rotate_left(43)
}
