//! glTF against the corpus: every `gltf/X.glb` lands in the frame of `meshes/X.obj`, and every
//! artist rig in `truth/X.json` (made from these GLBs) is read back by `load_rigged_gltf`.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::corpus;
use geppetto::geom::P3;
use geppetto::mesh::load::load_rigged_gltf;
use geppetto::mesh::{load, Mesh};

fn glbs(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir.join("gltf"))
        .expect("gltf folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    v.sort();
    v
}

/// First occurrence of each distinct position (within `tol`), in order: how the corpus OBJ files
/// were welded from the GLBs. Returns, per kept vertex, the index of its first GLB vertex.
fn first_occurrences(m: &Mesh, tol: f64) -> Vec<usize> {
    let key = |p: &P3| [p.x, p.y, p.z].map(|c| (c / tol).round() as i64);
    let mut grid: HashMap<[i64; 3], ()> = HashMap::new();
    let mut out = Vec::new();
    for (i, p) in m.positions.iter().enumerate() {
        let k = key(p);
        let mut seen = false;
        for d in 0..27 {
            let n = [k[0] + d % 3 - 1, k[1] + (d / 3) % 3 - 1, k[2] + d / 9 - 1];
            seen |= grid.contains_key(&n);
        }
        if !seen {
            grid.insert(k, ());
            out.push(i);
        }
    }
    out
}

#[test]
fn glb_lands_in_the_obj_frame_and_vertex_order() {
    let Some(dir) = corpus() else { return };
    for (name, path) in glbs(&dir) {
        let g = load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let o = load(&dir.join("meshes").join(format!("{name}.obj"))).expect("obj");
        let (bg, bo) = (g.aabb(), o.aabb());
        let ext = bo.max_extent();
        let dev = (bg.min - bo.min).norm().max((bg.max - bo.max).norm()) / ext;
        assert!(
            dev < 1e-4,
            "{name}: bbox differs by {dev:.2e} of the extent"
        );
        let firsts = first_occurrences(&g, 1e-8 * ext);
        let same_order = firsts.len() == o.positions.len()
            && firsts
                .iter()
                .zip(&o.positions)
                .all(|(&i, q)| (g.positions[i] - q).norm() < 1e-4 * ext);
        println!(
            "{name:14} glb {:6} v {:6} t | obj {:6} v {:6} t | bbox dev {dev:.1e} | welded glb = obj order: {same_order}",
            g.positions.len(),
            g.triangles.len(),
            o.positions.len(),
            o.triangles.len()
        );
        assert!(
            same_order,
            "{name}: welded GLB vertices differ from the OBJ's"
        );
        assert!(g.triangles.len() >= o.triangles.len(), "{name}: triangles");
    }
}

/// A truth joint's name as `load_rigged_gltf` names it (unnamed nodes: `jointK` → `joint_K`).
fn our_name(truth: &str, ours: &HashMap<String, usize>) -> Option<usize> {
    ours.get(truth).copied().or_else(|| {
        let k = truth.strip_prefix("joint")?;
        ours.get(&format!("joint_{k}")).copied()
    })
}

#[test]
fn rigged_glb_matches_truth() {
    let Some(dir) = corpus() else { return };
    let mut compared = 0;
    for (name, path) in glbs(&dir) {
        let truth_path = dir.join("truth").join(format!("{name}.json"));
        let Ok(text) = std::fs::read_to_string(&truth_path) else {
            continue;
        };
        let t: serde_json::Value = serde_json::from_str(&text).expect("truth json");
        let r = load_rigged_gltf(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let o = load(&dir.join("meshes").join(format!("{name}.obj"))).expect("obj");
        let ext = o.aabb().max_extent();
        let by_name: HashMap<String, usize> = r
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| (j.name.clone(), i))
            .collect();
        let names: Vec<String> = serde_json::from_value(t["joint_names"].clone()).unwrap();
        let parents: Vec<i64> = serde_json::from_value(t["parents"].clone()).unwrap();
        let pos: Vec<[f64; 3]> = serde_json::from_value(t["joint_positions"].clone()).unwrap();
        assert_eq!(r.joints.len(), names.len(), "{name}: joint count");
        let mut worst: f64 = 0.0;
        for (k, tn) in names.iter().enumerate() {
            let i = our_name(tn, &by_name).unwrap_or_else(|| panic!("{name}: joint {tn} missing"));
            let d = (P3::from(r.joints[i].position) - P3::from(pos[k])).norm() / ext;
            worst = worst.max(d);
            let want_parent = usize::try_from(parents[k]).ok().map(|p| names[p].as_str());
            let got_parent = r.joints[i].parent.map(|p| r.joints[p].name.as_str());
            let same = match (want_parent, got_parent) {
                (None, None) => true,
                (Some(w), Some(g)) => our_name(w, &by_name) == by_name.get(g).copied(),
                _ => false,
            };
            assert!(
                same,
                "{name}: parent of {tn}: {want_parent:?} vs {got_parent:?}"
            );
        }
        assert!(
            worst < 1e-4,
            "{name}: joint position error {worst:.2e} of the extent"
        );
        for (i, j) in r.joints.iter().enumerate() {
            assert!(j.parent.is_none_or(|p| p < i), "{name}: not parent-first");
        }
        let (l1_mean, l1_max) = compare_weights(&name, &t, &r, &o, &names, &by_name, ext);
        let (ibm_dev, spread) = ibm_check(&path, &r, ext);
        // Our frame (default pose, as the truth and the OBJ) is the bind pose up to one common
        // transform; inverse(IBM) positions can sit in another frame (bob_lamp: the skin's space
        // is rotated against the world), which is why joints come from node world transforms.
        assert!(
            spread < 1e-3,
            "{name}: default pose is not the bind pose ({spread:.2e})"
        );
        println!(
            "{name:14} joints {:3} max joint error {worst:.1e} of extent | W*IBM spread {spread:.1e}, \
             inverse-IBM vs world {ibm_dev:.1e} | weights vs truth: mean L1 {l1_mean:.2e}, max {l1_max:.2e}",
            r.joints.len()
        );
        compared += 1;
    }
    assert!(
        compared >= 8,
        "expected the 8 skinned truth files, compared {compared}"
    );
}

/// For the first skin: (a) the largest distance between a joint's reported position (its node's
/// world translation in the default pose) and the translation of its inverse bind matrix, and
/// (b) the largest spread of `W(joint) · IBM(joint)` across joints (zero when the default pose
/// is the bind pose up to one common transform). Both relative to `ext`.
fn ibm_check(path: &Path, r: &geppetto::mesh::load::RiggedMesh, ext: f64) -> (f64, f64) {
    type M4 = nalgebra::Matrix4<f64>;
    // Buffers only: gltf::import would also load texture images, some of which are absent.
    let g = gltf::Gltf::open(path).expect("gltf open");
    let buffers =
        gltf::import_buffers(&g.document, path.parent(), g.blob.clone()).expect("buffers");
    let doc = g.document;
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    let mut parent = vec![None; nodes.len()];
    for n in &nodes {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    let local = |i: usize| M4::from_fn(|a, b| f64::from(nodes[i].transform().matrix()[b][a]));
    let world = |mut i: usize| {
        let mut m = local(i);
        while let Some(p) = parent[i] {
            m = local(p) * m;
            i = p;
        }
        m
    };
    let skin = doc.skins().next().expect("skin");
    let reader = skin.reader(|b| Some(&buffers[b.index()]));
    let Some(ibms) = reader.read_inverse_bind_matrices() else {
        return (0.0, 0.0);
    };
    let (mut pos_dev, mut spread): (f64, f64) = (0.0, 0.0);
    let mut first: Option<M4> = None;
    for (k, (node, ibm)) in skin.joints().zip(ibms).enumerate() {
        let m = M4::from_fn(|i, j| f64::from(ibm[j][i]));
        let inv = m.try_inverse().expect("invertible IBM");
        let name = node
            .name()
            .map_or_else(|| format!("joint_{k}"), str::to_owned);
        let j = r
            .joints
            .iter()
            .find(|j| j.name == name)
            .expect("joint by name");
        let d = (P3::from(j.position) - P3::new(inv[(0, 3)], inv[(1, 3)], inv[(2, 3)])).norm();
        pos_dev = pos_dev.max(d / ext);
        let bind_shape = world(node.index()) * m;
        let f = *first.get_or_insert(bind_shape);
        let diff = bind_shape - f;
        let rot = diff.fixed_view::<3, 3>(0, 0).abs().max();
        let tr = diff.fixed_view::<3, 1>(0, 3).norm() / ext;
        spread = spread.max(rot.max(tr));
    }
    (pos_dev, spread)
}

/// Mean and max per-vertex L1 between our weights (top 4, renormalized, mapped to OBJ vertices by
/// first occurrence) and the truth's.
fn compare_weights(
    name: &str,
    t: &serde_json::Value,
    r: &geppetto::mesh::load::RiggedMesh,
    o: &Mesh,
    names: &[String],
    by_name: &HashMap<String, usize>,
    ext: f64,
) -> (f64, f64) {
    let skin = r
        .skin
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no weights"));
    let sj: Vec<Vec<i64>> = serde_json::from_value(t["skin_joints"].clone()).unwrap();
    let sw: Vec<Vec<f64>> = serde_json::from_value(t["skin_weights"].clone()).unwrap();
    assert_eq!(
        sj.len(),
        o.positions.len(),
        "{name}: truth rows = OBJ vertices"
    );
    let firsts = first_occurrences(&r.mesh, 1e-8 * ext);
    assert_eq!(firsts.len(), o.positions.len(), "{name}: welded count");
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    for (v, &g) in firsts.iter().enumerate() {
        let mut ours: Vec<(u32, f64)> = skin[g].iter().take(4).copied().collect();
        let tot: f64 = ours.iter().map(|e| e.1).sum();
        ours.iter_mut().for_each(|e| e.1 /= tot);
        let mut diff: HashMap<usize, f64> = HashMap::new();
        for (j, w) in ours {
            *diff.entry(j as usize).or_default() += w;
        }
        for (&j, &w) in sj[v].iter().zip(&sw[v]) {
            if j >= 0 && w > 0.0 {
                let ours_j = our_name(&names[j as usize], by_name).expect("joint");
                *diff.entry(ours_j).or_default() -= w;
            }
        }
        let l1: f64 = diff.values().map(|d| d.abs()).sum();
        sum += l1;
        max = max.max(l1);
    }
    let mean = sum / firsts.len() as f64;
    assert!(
        mean < 1e-3 && max < 0.05,
        "{name}: weights differ (mean {mean}, max {max})"
    );
    (mean, max)
}

#[test]
fn glb_prepares_like_its_obj() {
    let Some(dir) = corpus() else { return };
    for (name, path) in glbs(&dir) {
        let g = geppetto::mesh::prepare(load(&path).unwrap()).unwrap();
        let o =
            geppetto::mesh::prepare(load(&dir.join("meshes").join(format!("{name}.obj"))).unwrap())
                .unwrap();
        let (rg, ro) = (&g.report, &o.report);
        println!(
            "{name:14} glb: welded {:5} shells {:4} open {:5} nm {:3} watertight {} | obj: shells {:4} open {:5} nm {:3} watertight {}",
            rg.welded_vertices, rg.shells, rg.open_edges, rg.non_manifold_edges, rg.watertight,
            ro.shells, ro.open_edges, ro.non_manifold_edges, ro.watertight
        );
        // Welding the GLB's seam-split vertices recovers exactly the OBJ's vertices and topology.
        assert_eq!(
            rg.input_vertices - rg.welded_vertices,
            ro.input_vertices - ro.welded_vertices,
            "{name}"
        );
        let topo = |r: &geppetto::mesh::RepairReport| {
            (r.shells, r.open_edges, r.non_manifold_edges, r.watertight)
        };
        assert_eq!(topo(rg), topo(ro), "{name}");
    }
}
