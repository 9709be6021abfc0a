//! Decomposition into branches and depth refinement with a second silhouette per branch (paper
//! §6–7). The primary axis is centred in the image plane by construction (chord midpoints) but only
//! roughly in depth, so each branch is viewed again along v_k = p × (m_end − m_start) (Eq. 3), a
//! direction in which depth becomes an image coordinate, and each node's depth moves to the middle
//! of the branch's extent along p at the node's station. **Only depth changes** (§7.3).
//!
//! Decomposition (§6, made robust as the paper's Eq. 2 leaks between thin and thick parts): a
//! triangle belongs to the branch of the CDT triangle under its projected centroid.

use super::axis::Axis;
use super::prune::{Branch, Tree};
use super::raster::Raster;
use super::view::Frame;
use super::CurveMode;
use crate::mesh::PreparedMesh;

/// Second-silhouette points averaged per node (§7.3 "four nearest neighbour interpolation"; the
/// faithful mode takes the two highest and two lowest at the station).
pub const NEIGHBOURS: usize = 4;
/// A branch whose direction has less than this sine with the view (|p × d| < 0.2 |d|) points along
/// p: Eq. 3 degenerates, its depth is not refined and a diagnostic says so.
pub const ALONG_VIEW_SINE: f64 = 0.2;
/// Robust mode: moving-average window over the refined depths (nodes), against single-station noise.
const SMOOTH_WINDOW: usize = 5;
/// The station cut keeps surface within this many local radii of the node across the branch (a
/// curled tentacle crosses the same station more than once).
const CROSS_RADII: f64 = 2.0;
/// Robust mode: surface points at a station more than this many local radii apart along p belong
/// to different parts (a round limb's section has no empty stretch longer than its radius).
pub const LAYER_GAP_RADII: f64 = 1.5;

/// Per mesh triangle (prepared order): its branch, if it lies on one.
pub struct Labels {
    /// Branch per triangle.
    pub tri_branch: Vec<Option<usize>>,
}

/// What refinement did.
#[derive(Clone, Debug, Default)]
pub struct Refined {
    /// Branches pointing along the view (not refined).
    pub along_view: Vec<usize>,
    /// Per branch, per node: depth before refinement.
    pub before: Vec<Vec<f64>>,
    /// Branches where the second silhouette found no surface at most stations.
    pub empty: Vec<usize>,
}

/// Label every triangle with the branch under its projected centroid.
pub fn labels(
    prepared: &PreparedMesh,
    frame: &Frame,
    ax: &Axis,
    tree: &Tree,
    branches: &[Branch],
) -> Labels {
    let mut node_branch = vec![None; tree.nodes.len()];
    for (b, br) in branches.iter().enumerate() {
        let inner = if br.nodes.len() > 2 {
            &br.nodes[1..br.nodes.len() - 1]
        } else {
            &br.nodes[..]
        };
        for &n in inner {
            node_branch[n] = node_branch[n].or(Some(b));
        }
    }
    let tri_branch = prepared
        .triangles
        .iter()
        .map(|t| {
            let c = t.iter().fold(nalgebra::Vector3::zeros(), |a, &i| {
                a + prepared.positions[i as usize].coords
            }) / 3.0;
            let f = frame.to_frame(&crate::geom::P3::from(c));
            let node = ax.node_at(f.x, f.y)?;
            node_branch[tree.owner(node)]
        })
        .collect();
    Labels { tri_branch }
}

/// Refine the depth of every branch's inner nodes (module comment).
pub fn depth(
    prepared: &PreparedMesh,
    frame: &Frame,
    labels: &Labels,
    branches: &mut [Branch],
    primary: &Raster,
    mode: CurveMode,
) -> Refined {
    let pts: Vec<crate::geom::P3> = prepared
        .positions
        .iter()
        .map(|q| frame.to_frame(q))
        .collect();
    let mut tris: Vec<Vec<[usize; 3]>> = vec![Vec::new(); branches.len()];
    for (t, b) in prepared.triangles.iter().zip(&labels.tri_branch) {
        if let Some(b) = b {
            tris[*b].push(t.map(|i| i as usize));
        }
    }
    let mut out = Refined::default();
    for (b, br) in branches.iter_mut().enumerate() {
        out.before.push(br.pts.iter().map(|p| p.z).collect());
        let n = br.pts.len();
        let d = br.pts[n - 1] - br.pts[0];
        let planar = (d.x * d.x + d.y * d.y).sqrt();
        if planar < ALONG_VIEW_SINE * d.norm() || planar <= 0.0 {
            out.along_view.push(b);
            continue;
        }
        // u = normalize(v_k × p): the branch's in-image direction; stations are along it.
        let (ux, uy) = (d.x / planar, d.y / planar);
        let zs = station_depths(&pts, &tris[b], br, (ux, uy));
        let new_z: Vec<Option<f64>> = zs
            .into_iter()
            .enumerate()
            .map(|(k, zs)| {
                if k == 0 || k + 1 == n {
                    return None;
                }
                centre_of(zs, br.pts[k].z, br.radius[k], mode)
            })
            .collect();
        let found = new_z.iter().filter(|z| z.is_some()).count();
        if n > 2 && found * 2 < n - 2 {
            out.empty.push(b);
        }
        apply(br, &new_z, primary, mode);
    }
    out
}

/// Per node of `br`: depths along p where the branch's surface crosses the node's station plane
/// (through the node, perpendicular to `u`), within [`CROSS_RADII`] local radii of the node across
/// the branch: the second silhouette's sides there. Each triangle is tested only against the
/// stations its own extent along `u` spans (nodes sorted by station, a binary search), so the
/// cost is linear in the triangles, not triangles × nodes.
fn station_depths(
    pts: &[crate::geom::P3],
    tris: &[[usize; 3]],
    br: &Branch,
    u: (f64, f64),
) -> Vec<Vec<f64>> {
    let along = |q: &crate::geom::P3| q.x * u.0 + q.y * u.1;
    let across = |q: &crate::geom::P3| -q.x * u.1 + q.y * u.0;
    let mut order: Vec<(f64, usize)> = br.pts.iter().map(|m| (along(m), 0)).collect();
    for (k, o) in order.iter_mut().enumerate() {
        o.1 = k;
    }
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out = vec![Vec::new(); br.pts.len()];
    for t in tris {
        let s = t.map(|i| along(&pts[i]));
        let (lo, hi) = (
            s.iter().copied().fold(f64::INFINITY, f64::min),
            s.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let first = order.partition_point(|o| o.0 < lo);
        for &(s0, k) in order[first..].iter().take_while(|o| o.0 <= hi) {
            let m = br.pts[k];
            let (w0, cross) = (across(&m), CROSS_RADII * br.radius[k]);
            let d = s.map(|v| v - s0);
            for e in 0..3 {
                let (a, b) = (e, (e + 1) % 3);
                if (d[a] > 0.0) == (d[b] > 0.0) {
                    continue;
                }
                let (pa, pb) = (pts[t[a]], pts[t[b]]);
                let q = pa + (pb - pa) * (d[a] / (d[a] - d[b]));
                if (across(&q) - w0).abs() <= cross {
                    out[k].push(q.z);
                }
            }
        }
    }
    out
}

/// Robust: the middle of the part (surface layer) the node's outline depth `z_ref` lies in or is
/// nearest; faithful: the mean of the two highest and two lowest crossings.
///
/// Where parts overlap along p at a station (a scorpion's tail raised over its back, a tentacle
/// over another), the station's surface points form separate groups along p; the middle of the
/// whole extent would lie between them, outside the mesh. The primary outline there is drawn by
/// the part whose contour gave the node its depth, so the node stays in that part. Groups are
/// separated by an empty stretch longer than [`LAYER_GAP_RADII`] local radii `r`.
fn centre_of(mut zs: Vec<f64>, z_ref: f64, r: f64, mode: CurveMode) -> Option<f64> {
    if zs.len() < 2 {
        return None;
    }
    zs.sort_by(f64::total_cmp);
    let n = zs.len();
    Some(match mode {
        CurveMode::Robust => {
            let mut groups: Vec<(f64, f64)> = vec![(zs[0], zs[0])];
            for &z in &zs[1..] {
                let last = groups.last_mut().expect("non-empty");
                if z - last.1 > LAYER_GAP_RADII * r {
                    groups.push((z, z));
                } else {
                    last.1 = z;
                }
            }
            let (lo, hi) = groups
                .into_iter()
                .min_by(|a, b| gap(*a, z_ref).total_cmp(&gap(*b, z_ref)))
                .expect("non-empty");
            0.5 * (lo + hi)
        }
        CurveMode::Faithful => {
            let k = (NEIGHBOURS / 2).min(n / 2).max(1);
            (zs[..k].iter().sum::<f64>() + zs[n - k..].iter().sum::<f64>()) / (2 * k) as f64
        }
    })
}

/// Distance from `z` to the interval `[lo, hi]` (0 inside).
fn gap((lo, hi): (f64, f64), z: f64) -> f64 {
    (lo - z).max(z - hi).max(0.0)
}

/// Write the refined depths (robust: smoothed, and kept within the primary raster's depth range at
/// the node, so a node never leaves the surface's span along its ray).
fn apply(br: &mut Branch, new_z: &[Option<f64>], primary: &Raster, mode: CurveMode) {
    let n = br.pts.len();
    let mut delta: Vec<Option<f64>> = (0..n).map(|k| new_z[k].map(|z| z - br.pts[k].z)).collect();
    if mode == CurveMode::Robust {
        let h = SMOOTH_WINDOW / 2;
        delta = (0..n)
            .map(|k| {
                delta[k]?;
                let win: Vec<f64> = (k.saturating_sub(h)..(k + h + 1).min(n))
                    .filter_map(|i| delta[i])
                    .collect();
                Some(win.iter().sum::<f64>() / win.len() as f64)
            })
            .collect();
    }
    for (k, d) in delta.iter().enumerate() {
        let Some(dz) = *d else { continue };
        let mut z = br.pts[k].z + dz;
        if mode == CurveMode::Robust {
            let (u, v) = primary.to_px(br.pts[k].x, br.pts[k].y);
            if let Some((lo, hi)) = primary.depth_range(u, v) {
                z = z.clamp(lo, hi);
            }
        }
        br.pts[k].z = z;
    }
}
