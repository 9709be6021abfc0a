//! The skinning driver: heat sources → shell treatment → one SPD solve → per input vertex.

use std::time::Instant;

use super::bones::{self, Bone};
use super::heat::{self, Source, MIN_HEAT_DISTANCE};
use super::laplacian::SymCsc;
use super::solve::solve_spd_with;
use super::system::{likely_heat_vertices, HeatSystem, SystemCache};
use super::{ShellBinding, Skin, SkinError, SkinOptions, SkinStats};
use crate::geom::P3;
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;
use crate::util::ms_since;

/// Shells with fewer welded vertices than this (a lone triangle or card) are bound rigidly: there
/// is no surface to diffuse over.
const MIN_HEAT_SHELL: usize = 4;

/// Per welded vertex weights, heaviest first.
type Rows = Vec<Vec<(u32, f64)>>;

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
    let (system, mut sources) = system_and_sources(mesh, &bones, sdf, cache);
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
    bones::bones(&nj, sdf)
}

/// The heat system of the likely diffused vertices (from `cache`, or built and kept there) and
/// every vertex's heat source.
fn system_and_sources(
    mesh: &PreparedMesh,
    bones: &[Bone],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
    cache: Option<&SystemCache>,
) -> (HeatSystem, Vec<Option<Source>>) {
    // The matrix half of the system needs no heat source: built alongside (see `system`).
    let likely = likely_heat_vertices(&shell_vertex_lists(mesh), MIN_HEAT_SHELL);
    // The system on this thread (the one that used to build it, so its big buffers come from the
    // same allocator arena as before: measured lower peak memory), the sources on both.
    let kept = cache.and_then(|c| c.get(&likely));
    match kept {
        Some(system) => (system, heat::sources(&mesh.positions, bones, sdf)),
        None => rayon::join(
            || {
                let s = HeatSystem::build(mesh, likely);
                if let Some(c) = cache {
                    c.put(&s);
                }
                s
            },
            || heat::sources(&mesh.positions, bones, sdf),
        ),
    }
}

/// Decide per shell: heat diffusion if any of its vertices sees a bone and it is not tiny, else
/// rigid binding to the nearest bone's joint (filled into `rows` here). Records the treatment in
/// `out.shells` and a warning summarizing the rigid ones. Returns the heat-diffused vertices.
fn classify_shells(
    mesh: &PreparedMesh,
    sources: &[Option<Source>],
    bones: &[Bone],
    joints: &[RigJoint],
    rows: &mut Rows,
    out: &mut Skin,
) -> Vec<u32> {
    let shells = shell_vertex_lists(mesh);
    let mut heat_vertices = Vec::new();
    let mut rigid = Vec::new();
    for (s, verts) in shells.iter().enumerate() {
        let sees = verts
            .iter()
            .any(|&v| sources.get(v as usize).is_some_and(Option::is_some));
        if sees && verts.len() >= MIN_HEAT_SHELL {
            heat_vertices.extend_from_slice(verts);
            out.shells.push(ShellBinding::Heat {
                shell: s,
                vertices: verts.len(),
            });
        } else {
            let joint = bind_rigid(mesh, verts, bones, rows);
            let name = joint_name(joints, joint);
            rigid.push(format!("shell {s} ({} vertices) → {name}", verts.len()));
            out.shells.push(ShellBinding::Rigid {
                shell: s,
                vertices: verts.len(),
                joint: name,
            });
        }
    }
    if !rigid.is_empty() {
        out.warnings.push(format!(
            "{} of {} shells see no bone (or are tiny) and follow their nearest joint rigidly: {}",
            rigid.len(),
            shells.len(),
            summarize(&rigid)
        ));
    }
    heat_vertices
}

/// Bind the heat-diffused shells that one joint carries (share ≥ `opts.rigid_share`) rigidly to
/// it ([`super::parts`]), recording them as [`ShellBinding::Part`] and in one warning.
fn bind_parts(
    mesh: &PreparedMesh,
    rows: &mut Rows,
    joints: &[RigJoint],
    opts: &SkinOptions,
    out: &mut Skin,
) {
    if opts.rigid_share > 1.0 {
        return;
    }
    let shells = shell_vertex_lists(mesh);
    let area = super::parts::vertex_areas(&mesh.positions, &mesh.triangles);
    let mut bound = Vec::new();
    for binding in &mut out.shells {
        let ShellBinding::Heat { shell, vertices } = *binding else {
            continue;
        };
        let Some(verts) = shells.get(shell) else {
            continue;
        };
        let Some((j, share)) = super::parts::dominant_joint(verts, rows, &area, opts.rigid_share)
        else {
            continue;
        };
        for &v in verts {
            rows[v as usize] = vec![(j, 1.0)];
        }
        let joint = joint_name(joints, j);
        bound.push(format!("shell {shell} → {joint}"));
        *binding = ShellBinding::Part {
            shell,
            vertices,
            joint,
            share,
        };
    }
    if !bound.is_empty() {
        out.warnings.push(format!(
            "{} of {} shells are rigid parts (one joint carries ≥ {:.0} % of the weight) and follow it alone: {}",
            bound.len(),
            shells.len(),
            100.0 * opts.rigid_share,
            summarize(&bound)
        ));
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
        warnings.push(format!(
            "{} joints own bones but no vertex can see them: {}",
            empty.len(),
            summarize(&empty)
        ));
    }
}

/// Solve the heat system over `verts` and fill their rows. Never fails: if the factorization
/// fails even after regularization, each vertex follows its nearest visible bone(s).
fn diffuse(
    sources: &[Option<Source>],
    system: HeatSystem,
    opts: &SkinOptions,
    rows: &mut Rows,
    stats: &mut SkinStats,
    warnings: &mut Vec<String>,
) {
    let t = Instant::now();
    stats.symbolic_ms = system.analyze_ms;
    let (pattern, verts) = (system.pattern, system.verts);
    let verts = verts.as_slice();
    let (a, mut x, joint_of_column) =
        assemble(system.stiffness, &system.mass, sources, verts, opts);
    let (n, k) = (verts.len(), joint_of_column.len());
    stats.unknowns = n;
    stats.columns = k;
    stats.assemble_ms = ms_since(t);
    let solved = match &pattern {
        _ if n == 0 || k == 0 => Ok(Default::default()),
        Ok(p) => solve_spd_with(p, &a, &mut x, k),
        Err(e) => Err(e.clone()),
    };
    match solved {
        Ok(s) => {
            stats.numeric_ms = s.numeric_ms;
            stats.solve_ms = s.solve_ms;
            if s.attempts > 1 {
                warnings.push(format!(
                    "the heat system needed a diagonal shift of {:.0e} to factor",
                    s.shift
                ));
            }
        }
        Err(e) => {
            warnings.push(format!(
                "the heat system could not be factored ({e}); vertices follow their nearest visible bone"
            ));
            x.iter_mut().for_each(|v| *v = 0.0);
        }
    }
    let t = Instant::now();
    let mut fallback = 0usize;
    for (r, &v) in verts.iter().enumerate() {
        let raw = joint_of_column
            .iter()
            .enumerate()
            .map(|(c, &j)| (j, x[c * n + r]));
        let w = finish_row(raw, opts);
        rows[v as usize] = if w.is_empty() {
            fallback += 1;
            let mut r = source_row(sources[v as usize].as_ref());
            super::prune::prune_row(&mut r, opts);
            r
        } else {
            w
        };
    }
    if fallback > 0 {
        warnings.push(format!(
            "{fallback} vertices received no heat through the surface and follow their nearest visible bone"
        ));
    }
    keep_pruned_joints(&x, n, &joint_of_column, verts, opts, rows);
    stats.post_ms = ms_since(t);
}

/// A joint that received heat but lost every vertex to pruning (a short spine bone that only
/// adopted a few vertices, [`heat::adopt_orphans`]) would move nothing: it keeps its weight on
/// the vertex where its raw weight is largest, in place of that row's lightest joint if the row
/// is full, and the row is renormalized.
fn keep_pruned_joints(
    x: &[f64],
    n: usize,
    joint_of_column: &[u32],
    verts: &[u32],
    opts: &SkinOptions,
    rows: &mut Rows,
) {
    let present: std::collections::BTreeSet<u32> = verts
        .iter()
        .flat_map(|&v| rows[v as usize].iter().map(|e| e.0))
        .collect();
    for (c, &j) in joint_of_column.iter().enumerate() {
        if present.contains(&j) || n == 0 {
            continue;
        }
        let column = &x[c * n..(c + 1) * n];
        let Some((r, &w)) = column
            .iter()
            .enumerate()
            .filter(|(_, w)| w.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))
        else {
            continue;
        };
        if w < opts.prune {
            continue;
        }
        let row = &mut rows[verts[r] as usize];
        row.truncate(opts.max_influences.max(1) - 1);
        row.push((j, w.clamp(0.0, 1.0)));
        let sum: f64 = row.iter().map(|e| e.1).sum();
        row.iter_mut().for_each(|e| e.1 /= sum);
        row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
}

/// The system `A = L_c + M·H` over `verts` (row r = `verts[r]`; `a` holds `L_c` on entry) and the
/// right-hand sides `B[:, c] = M·H·p_c` (column-major, `verts.len() × columns`), one column per
/// joint that receives heat anywhere; returns `(A, B, joint of each column)`.
fn assemble(
    mut a: SymCsc,
    mass: &[f64],
    sources: &[Option<Source>],
    verts: &[u32],
    opts: &SkinOptions,
) -> (SymCsc, Vec<f64>, Vec<u32>) {
    let n = verts.len();
    let mut column_of = std::collections::BTreeMap::new();
    for s in verts.iter().filter_map(|&v| sources[v as usize].as_ref()) {
        for &j in &s.joints {
            let next = column_of.len();
            column_of.entry(j).or_insert(next);
        }
    }
    let k = column_of.len();
    let mut x = vec![0.0; n * k];
    for (r, &v) in verts.iter().enumerate() {
        if let Some(s) = &sources[v as usize] {
            let mh = mass[r] * opts.heat / s.distance.max(MIN_HEAT_DISTANCE).powi(2);
            a.values[a.diag[r]] += mh;
            for j in &s.joints {
                x[column_of[j] * n + r] = mh;
            }
        }
    }
    let mut joint_of_column = vec![0u32; k];
    for (&joint, &c) in &column_of {
        joint_of_column[c] = joint;
    }
    (a, x, joint_of_column)
}

/// Clip to [0, 1], drop weights below `opts.prune`, prune the influences relative to the row
/// ([`super::prune::prune_row`]: at most `opts.max_influences`), renormalize, sort heaviest first.
/// Empty if nothing is left. Also the post-processing of `edit`'s local re-solves, so both give
/// the same rows.
pub fn finish_row(raw: impl Iterator<Item = (u32, f64)>, opts: &SkinOptions) -> Vec<(u32, f64)> {
    let mut w = Vec::new();
    finish_row_into(raw, opts, &mut w);
    w
}

/// [`finish_row`] into `out` (cleared first; its allocation is reused).
pub fn finish_row_into(
    raw: impl Iterator<Item = (u32, f64)>,
    opts: &SkinOptions,
    out: &mut Vec<(u32, f64)>,
) {
    out.clear();
    out.extend(
        raw.filter(|(_, v)| v.is_finite())
            .map(|(j, v)| (j, v.clamp(0.0, 1.0)))
            .filter(|&(_, v)| v >= opts.prune && v > 0.0),
    );
    super::prune::prune_row(out, opts);
}

/// Equal weights over a heat source's tied joints (empty for no source).
fn source_row(s: Option<&Source>) -> Vec<(u32, f64)> {
    match s {
        Some(s) if !s.joints.is_empty() => {
            let w = 1.0 / s.joints.len() as f64;
            s.joints.iter().map(|&j| (j, w)).collect()
        }
        _ => Vec::new(),
    }
}

/// Bind every vertex of a shell to the joint of the bone that comes closest to the shell.
fn bind_rigid(mesh: &PreparedMesh, verts: &[u32], bones: &[Bone], rows: &mut Rows) -> u32 {
    let best = verts
        .iter()
        .filter_map(|&v| mesh.positions.get(v as usize))
        .filter_map(|p| heat::nearest_bone(p, bones))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| bones[b].joint)
        .unwrap_or(bones[0].joint);
    for &v in verts {
        if let Some(r) = rows.get_mut(v as usize) {
            *r = vec![(best, 1.0)];
        }
    }
    best
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

/// Welded vertex lists of the shells: `mesh.shells` when present, else edge-connected
/// components of `mesh.triangles` computed here (the shell indices of [`super::ShellBinding`]).
pub fn shell_vertex_lists(mesh: &PreparedMesh) -> Vec<Vec<u32>> {
    if !mesh.shells.is_empty() {
        return mesh.shells.iter().map(|s| s.vertices.clone()).collect();
    }
    let n = mesh.positions.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut used = vec![false; n];
    for t in &mesh.triangles {
        if t.iter().any(|&v| v as usize >= n) {
            continue;
        }
        for k in 0..3 {
            used[t[k] as usize] = true;
            let (a, b) = (
                find(&mut parent, t[k] as usize),
                find(&mut parent, t[(k + 1) % 3] as usize),
            );
            parent[a] = b;
        }
    }
    let mut index = std::collections::HashMap::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for v in (0..n).filter(|&v| used[v]) {
        let root = find(&mut parent, v);
        let s = *index.entry(root).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[s].push(v as u32);
    }
    out
}

pub(super) fn joint_name(joints: &[RigJoint], j: u32) -> String {
    joints
        .get(j as usize)
        .map_or_else(|| format!("joint {j}"), |j| j.name.clone())
}

/// The first few items, then "and N more".
fn summarize(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}
