//! The skinning driver: heat sources → shell treatment (`shells.rs`) → one SPD solve
//! (`diffuse.rs`) → per input vertex.

use std::time::Instant;

use super::bones::{self, Bone};
use super::diffuse::diffuse;
use super::heat::{self, Source};
use super::shells::{bind_parts, classify_shells, joint_name, shell_vertex_lists, summarize};
use super::system::{likely_set, HeatSystem, SystemCache};
use super::{Skin, SkinError, SkinOptions, SkinStats};
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;
use crate::util::ms_since;

/// Per welded vertex weights, heaviest first.
pub(super) type Rows = Vec<Vec<(u32, f64)>>;

/// [`super::skin`] with the signed distance given as a function (normalized frame, negative
/// inside), so tests and callers without a [`crate::discretize::DistanceField`] can use an exact
/// one.
pub fn skin_with_sdf(
    mesh: &PreparedMesh,
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
    joints: &[RigJoint],
    opts: &SkinOptions,
) -> Result<Skin, SkinError> {
    skin_with_sdf_cached(mesh, sdf, joints, opts, None)
}

/// [`skin_with_sdf`], taking the heat system from `cache` when it holds the one for this mesh's
/// likely diffused set, and keeping the one it builds there otherwise (same weights either way).
pub fn skin_with_sdf_cached(
    mesh: &PreparedMesh,
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
    joints: &[RigJoint],
    opts: &SkinOptions,
    cache: Option<&SystemCache>,
) -> Result<Skin, SkinError> {
    let t_total = Instant::now();
    let bones = joint_bones(mesh, joints, sdf);
    if bones.is_empty() {
        return Err(SkinError::NoBones);
    }
    let mut stats = SkinStats {
        bones: bones.len(),
        ..SkinStats::default()
    };
    let mut out = Skin::default();

    let t = Instant::now();
    let normals = surface_normals(mesh, opts);
    let (system, mut sources) = system_and_sources(mesh, normals.as_deref(), &bones, sdf, cache);
    stats.heat_ms = ms_since(t);

    let mut rows: Rows = vec![Vec::new(); mesh.positions.len()];
    let heat_vertices = classify_shells(mesh, &sources, &bones, joints, &mut rows, &mut out);
    let t = Instant::now();
    adopt(
        mesh,
        &bones,
        &mut sources,
        &heat_vertices,
        &rows,
        sdf,
        joints,
        &mut out.warnings,
    );
    stats.heat_ms += ms_since(t);
    let system = HeatSystem::reuse_or_build(Some(system), mesh, &heat_vertices);
    diffuse(
        &sources,
        system,
        opts,
        &mut rows,
        &mut stats,
        &mut out.warnings,
    );

    let t = Instant::now();
    bind_parts(mesh, &mut rows, joints, opts, &mut out);
    let shells = shell_vertex_lists(mesh);
    super::props::bind_props(mesh, &shells, &mut rows, joints, &mut out);
    out.weights = per_input_vertex(mesh, &rows, &bones, &mut out.warnings);
    stats.post_ms += ms_since(t);
    stats.total_ms = ms_since(t_total);
    out.stats = stats;
    Ok(out)
}

/// The welded vertices' outward normals when distances are oriented ([`SkinOptions::oriented`],
/// not in the many-parts mode), else `None`. Each shell's normals are turned so that its signed
/// volume about its own centroid is positive: flipping the input's faces negates that volume
/// exactly, so the normals cannot depend on the winding, even for an open sheet that `prepare`
/// leaves as it came (it turns only clearly inward open shells).
pub fn surface_normals(mesh: &PreparedMesh, opts: &SkinOptions) -> Option<Vec<V3>> {
    if !opts.oriented || opts.many_parts {
        return None;
    }
    let mut normals = heat::vertex_normals(&mesh.positions, &mesh.triangles);
    let shells = shell_vertex_lists(mesh);
    let mut shell_of = vec![usize::MAX; mesh.positions.len()];
    for (s, verts) in shells.iter().enumerate() {
        for &v in verts {
            shell_of[v as usize] = s;
        }
    }
    // A triangle counts for its first corner's shell (`shell_of`).
    let mut tris_of = vec![Vec::new(); shells.len()];
    for (t, tri) in mesh.triangles.iter().enumerate() {
        if let Some(list) = tris_of.get_mut(shell_of[tri[0] as usize]) {
            list.push(t as u32);
        }
    }
    let volume: Vec<f64> = tris_of
        .iter()
        .map(|tris| crate::mesh::volume_and_area(tris, &mesh.triangles, &mesh.positions).0)
        .collect();
    for (s, verts) in shells.iter().enumerate() {
        if volume[s] < 0.0 {
            verts.iter().for_each(|&v| normals[v as usize] *= -1.0);
        }
    }
    Some(normals)
}

/// The bones of `joints` (normalized frame), each with the part of it inside the mesh.
fn joint_bones(
    mesh: &PreparedMesh,
    joints: &[RigJoint],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
) -> Vec<Bone> {
    let norm = &mesh.normalization;
    let nj: Vec<(P3, Option<usize>, bool)> = joints
        .iter()
        .map(|j| (norm.to_normalized(&j.point()), j.parent, j.end))
        .collect();
    let surface = bones::Surface {
        positions: &mesh.positions,
        triangles: &mesh.triangles,
    };
    bones::bones(&nj, sdf, Some(surface))
}

/// The heat system of the likely diffused vertices (from `cache`, or built and kept there) and
/// every vertex's heat source.
fn system_and_sources(
    mesh: &PreparedMesh,
    normals: Option<&[V3]>,
    bones: &[Bone],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
    cache: Option<&SystemCache>,
) -> (HeatSystem, Vec<Option<Source>>) {
    // The matrix half of the system needs no heat source: built alongside (see `system`).
    let likely = likely_set(mesh);
    // The system on this thread (the one that used to build it, so its big buffers come from the
    // same allocator arena as before: measured lower peak memory), the sources on both.
    let kept = cache.and_then(|c| c.get(&likely));
    match kept {
        Some(system) => (system, heat::sources(&mesh.positions, normals, bones, sdf)),
        None => rayon::join(
            || {
                let s = HeatSystem::build(mesh, likely);
                if let Some(c) = cache {
                    c.put(&s);
                }
                s
            },
            || heat::sources(&mesh.positions, normals, bones, sdf),
        ),
    }
}

/// Let bone-owning joints that own no vertex yet adopt their relatively nearest vertices
/// ([`heat::adopt_orphans`]); warn about joints that still have none.
#[allow(clippy::too_many_arguments)]
fn adopt(
    mesh: &PreparedMesh,
    bones: &[Bone],
    sources: &mut [Option<Source>],
    heat_vertices: &[u32],
    rows: &Rows,
    sdf: &dyn Fn(&P3) -> f64,
    joints: &[RigJoint],
    warnings: &mut Vec<String>,
) {
    let mut owned = vec![false; joints.len()];
    let heat_joints = heat_vertices
        .iter()
        .filter_map(|&v| sources[v as usize].as_ref())
        .flat_map(|s| s.joints.iter());
    for &j in heat_joints.chain(rows.iter().flatten().map(|e| &e.0)) {
        if let Some(o) = owned.get_mut(j as usize) {
            *o = true;
        }
    }
    let adopted = heat::adopt_orphans(&mesh.positions, bones, sources, heat_vertices, &owned, sdf);
    for &j in &adopted {
        owned[j as usize] = true;
    }
    let empty: Vec<String> = bones
        .iter()
        .map(|b| b.joint)
        .filter(|&j| !owned[j as usize])
        .map(|j| joint_name(joints, j))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !empty.is_empty() {
        let (n, verb) = match empty.len() {
            1 => ("1 joint owns".to_string(), "it"),
            n => (format!("{n} joints own"), "them"),
        };
        warnings.push(format!(
            "{n} bones but no vertex can see {verb}: {}",
            summarize(&empty)
        ));
    }
}

/// Map welded rows to input vertices; vertices no shell covers follow their nearest bone's joint.
fn per_input_vertex(
    mesh: &PreparedMesh,
    rows: &Rows,
    bones: &[Bone],
    warnings: &mut Vec<String>,
) -> Vec<Vec<(u32, f64)>> {
    let mut loose = 0usize;
    let out = mesh
        .input
        .positions
        .iter()
        .enumerate()
        .map(|(i, p_mesh)| {
            let welded = mesh.weld.get(i).map(|&w| w as usize);
            match welded.and_then(|w| rows.get(w)) {
                Some(r) if !r.is_empty() => r.clone(),
                _ => {
                    loose += 1;
                    let p = mesh.normalization.to_normalized(p_mesh);
                    let b = heat::nearest_bone(&p, bones).map_or(0, |(b, _)| b);
                    vec![(bones[b].joint, 1.0)]
                }
            }
        })
        .collect();
    if loose > 0 {
        warnings.push(format!(
            "{loose} input vertices are used by no triangle and follow their nearest joint"
        ));
    }
    out
}
