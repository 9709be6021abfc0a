//! Heat sources of a local re-solve (the nearest visible virtual bone per region vertex, facts
//! §2.5, §5.1) and the heat term `M H` they give: recomputed only where a changed bone can matter,
//! and for a continuing drag computed ahead, beside the region search.

use std::time::Instant;

use rayon::prelude::*;

use super::local::Region;
use super::Session;
use crate::skin::bones::Bone;
use crate::skin::heat::{self, Source, MIN_HEAT_DISTANCE, TIE};
use crate::util::ms_since;

/// Heat sources of a region computed ahead of its solve (a drag step's, beside the region search:
/// the search reads only the weights, the sources only the joints).
#[derive(Clone, Debug, Default)]
pub struct Prefetched {
    /// The region they were computed for.
    pub region: Vec<u32>,
    /// [`region_sources`] on it, by position in the region's heat-row order.
    pub(super) fresh: Vec<(usize, Option<Source>)>,
    /// Time taken, ms.
    pub heat_ms: f64,
}

/// The heat sources a solve on `region` would recompute, with the session as it is now (joints
/// moved, changed bones flagged): the same computation, so the same values.
pub fn prefetch_sources(s: &Session, region: &[u32]) -> Prefetched {
    let t = Instant::now();
    let verts = Region::rows_of(s, region)
        .iter()
        .map(|&r| s.heat_verts[r])
        .collect::<Vec<u32>>();
    let fresh = region_sources(s, &verts, &s.virtual_bones());
    Prefetched {
        region: region.to_vec(),
        fresh,
        heat_ms: ms_since(t),
    }
}

/// Heat sources on `verts` that must be recomputed, by position in `verts`: a vertex keeps its
/// cached source unless a bone that changed since the
/// cache was filled could matter to it: its source joint owns a changed bone, or a changed bone is
/// now at most as far as its source. Unchanged bones keep their distances and visibility, so the
/// nearest visible one among them is unchanged: the result equals a full recomputation.
pub(super) fn region_sources(
    s: &Session,
    verts: &[u32],
    bones: &[Bone],
) -> Vec<(usize, Option<Source>)> {
    let dirty: Option<Vec<&Bone>> = match &s.dirty {
        Some(d) if d.len() == bones.len() => Some(
            bones
                .iter()
                .zip(d)
                .filter(|(_, &x)| x)
                .map(|(b, _)| b)
                .collect(),
        ),
        _ => None,
    };
    let stale = |v: u32| -> bool {
        let Some(dirty) = &dirty else { return true };
        let Some(Some(src)) = s.sources.get(v as usize) else {
            return true;
        };
        let p = &s.mesh.positions[v as usize];
        let n = s.normals.as_ref().and_then(|n| n.get(v as usize));
        dirty.iter().any(|b| {
            src.joints.contains(&b.joint)
                || heat::oriented_distance(p, b, n) <= src.distance * (1.0 + TIE) + 1e-12
        })
    };
    // A pure per-vertex test, in parallel (the collected order is the index order).
    let redo: Vec<usize> = (0..verts.len())
        .into_par_iter()
        .with_min_len(STALE_CHUNK)
        .filter(|&l| stale(verts[l]))
        .collect();
    let points: Vec<_> = redo
        .iter()
        .map(|&l| s.mesh.positions[verts[l] as usize])
        .collect();
    let normals: Option<Vec<_>> = s
        .normals
        .as_ref()
        .map(|n| redo.iter().map(|&l| n[verts[l] as usize]).collect());
    redo.into_iter()
        .zip(heat::sources(&points, normals.as_deref(), bones, s.sdf))
        .collect()
}

/// Least vertices per parallel task of the stale-source test.
const STALE_CHUNK: usize = 2048;

/// `M_ii · c / d²` of a vertex (row `r`) with heat source `src`; c is the magnitude of the joints
/// the source's bones belong to (their mean when bones of several joints tie), facts §5.2.
pub(super) fn heat_term(s: &Session, r: usize, src: &Source) -> f64 {
    let c = src
        .joints
        .iter()
        .map(|&j| s.controls.get(j as usize).map_or(1.0, |c| c.magnitude))
        .sum::<f64>()
        / src.joints.len().max(1) as f64;
    s.mass[r] * s.opts.heat * c / src.distance.max(MIN_HEAT_DISTANCE).powi(2)
}
