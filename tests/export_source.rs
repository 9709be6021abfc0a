//! "Keep what the artist made": the rigged GLB keeps the input's materials, textures, images,
//! every vertex attribute, morph targets, primitives and node structure, and its bind pose
//! renders exactly where the input did. Synthetic OBJ/glTF/PLY/FBX inputs and the corpus fox.

#[path = "skin_common/mod.rs"]
mod skin_common;
use skin_common::common;
mod source_support;

use std::path::Path;

use geppetto::export::glb_source::source_glb_bytes;
use geppetto::mesh::load::{load, load_with_source, LoadedMesh};
use geppetto::rig::{RigJoint, SkinTable};
use serde_json::{json, Value};
use source_support::{accessor_bytes, accessor_f32, png, split_glb, write_glb};

/// Two joints along +Y and weights blending between them by height: enough to bind anything.
fn two_joint_rig(loaded: &LoadedMesh) -> (Vec<RigJoint>, SkinTable) {
    let bb = loaded.mesh.aabb();
    let (lo, hi) = (bb.min.y, bb.max.y.max(bb.min.y + 1e-9));
    let joints = vec![
        RigJoint {
            name: "root".into(),
            parent: None,
            position: [0.0, lo, 0.0],
            end: false,
        },
        RigJoint {
            name: "top".into(),
            parent: Some(0),
            position: [0.0, hi, 0.0],
            end: false,
        },
    ];
    let skin = loaded
        .mesh
        .positions
        .iter()
        .map(|p| {
            let t = ((p.y - lo) / (hi - lo)).clamp(0.0, 1.0);
            let mut row = vec![(0u32, 1.0 - t), (1u32, t)];
            row.retain(|e| e.1 > 0.0);
            row
        })
        .collect();
    (joints, skin)
}

/// Rig `input` with the two-joint rig, write the GLB into `dir`, validate it, and check that
/// its bind pose (read back with the skin applied) puts every vertex where the input had it.
fn rig_and_check(input: &Path, dir: &Path) -> (Value, Vec<u8>, LoadedMesh) {
    let loaded = load_with_source(input).expect("load");
    let src = loaded.source.as_ref().expect("a source document");
    let (joints, skin) = two_joint_rig(&loaded);
    let bytes = source_glb_bytes(src, &joints, Some(&skin), false).expect("GLB");
    let out = dir.join("out.glb");
    std::fs::write(&out, &bytes).unwrap();
    if let Some((ok, report)) = skin_common::gltf_validator(&[&out]) {
        println!("{report}");
        assert!(ok, "validator reported errors:\n{report}");
    }
    // Bind pose: every output vertex is at its mesh vertex's position.
    let back = load(&out).expect("read back");
    let extent = loaded.mesh.aabb().max_extent();
    let mut k = 0;
    for p in &src.primitives {
        for &v in &p.vertices {
            let d = (back.positions[k] - loaded.mesh.positions[v as usize]).norm();
            assert!(d <= 1e-5 * extent, "vertex {k} (mesh {v}) moved by {d}");
            k += 1;
        }
    }
    assert_eq!(k, back.positions.len());
    let (j, bin) = split_glb(&bytes);
    (j, bin, loaded)
}

#[test]
fn obj_with_uvs_normals_and_textured_mtl_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let tex = png(4, 4, [200, 30, 40, 255]);
    std::fs::create_dir(dir.path().join("tex")).unwrap();
    std::fs::write(dir.path().join("tex/skin.png"), &tex).unwrap();
    std::fs::write(
        dir.path().join("m.mtl"),
        "newmtl skin\nKd 0.8 0.7 0.6\nNs 50\nmap_Kd tex/skin.png\nnewmtl cloth\nKd 0 0 1\nd 0.5\n",
    )
    .unwrap();
    // A quad column: 8 positions, face-varying UVs (the seam splits vertices), normals.
    let obj = "mtllib m.mtl\n\
        v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 2 0\nv 1 2 0\nv 0 3 0\nv 1 3 0\n\
        vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\nvn 0 0 2\n\
        usemtl skin\nf 1/1/1 2/2/1 3/3/1 4/4/1\nf 4/5/1 3/3/1 6/2/1 5/1/1\n\
        usemtl cloth\nf 5/1/1 6/2/1 8/3/1 7/4/1\n";
    let input = dir.path().join("column.obj");
    std::fs::write(&input, obj).unwrap();
    let (j, bin, loaded) = rig_and_check(&input, dir.path());
    // rig.json's order is the file's: 8 positions, 6 triangles.
    assert_eq!(loaded.mesh.positions.len(), 8);
    assert_eq!(loaded.mesh.triangles.len(), 6);
    assert!(loaded.source.as_ref().unwrap().warnings.is_empty());
    let prims = j["meshes"][0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 2, "one primitive per material");
    let p0 = &prims[0];
    for a in ["POSITION", "NORMAL", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0"] {
        assert!(p0["attributes"].get(a).is_some(), "{a} missing");
    }
    // Corner (4, vt 4) and (4, vt 5) differ: 4 + 2 new corners (vt 5 at 4; 6, 5 with new uvs).
    let n0 = j["accessors"][p0["attributes"]["POSITION"].as_u64().unwrap() as usize]["count"]
        .as_u64()
        .unwrap();
    assert_eq!(n0, 7, "face-varying corners split");
    // Normals are unit length; V is flipped for glTF.
    let normals = accessor_f32(&j, &bin, p0["attributes"]["NORMAL"].as_u64().unwrap());
    assert!(normals.chunks(3).all(|n| (n[2] - 1.0).abs() < 1e-6));
    let uv = accessor_f32(&j, &bin, p0["attributes"]["TEXCOORD_0"].as_u64().unwrap());
    let pos = accessor_f32(&j, &bin, p0["attributes"]["POSITION"].as_u64().unwrap());
    let origin = pos.chunks(3).position(|p| p == [0.0, 0.0, 0.0]).unwrap();
    assert_eq!(
        &uv[2 * origin..2 * origin + 2],
        &[0.0, 1.0],
        "vt (0, 0) is glTF (0, 1)"
    );
    // Materials: textured skin, blended blue cloth; the image is embedded byte for byte.
    let m = &j["materials"];
    assert_eq!(m[0]["name"], "skin");
    assert_eq!(source_support::base_color_image(&j, &bin, &m[0]), &tex[..]);
    assert_eq!(m[1]["alphaMode"], "BLEND");
    assert_eq!(
        m[1]["pbrMetallicRoughness"]["baseColorFactor"],
        json!([0.0, 0.0, 1.0, 0.5])
    );
    assert_eq!(prims[1]["material"], 1);
}

/// Blender exports `hero skin.obj` with `mtllib hero skin.mtl` (the name as it is, spaces and
/// all) and textures in folders with spaces: the GLB keeps the material and its texture. Before,
/// the line was read as two libraries `hero` and `skin.mtl`, both missing: an untextured GLB.
#[test]
fn an_mtl_and_a_texture_with_spaces_in_their_names_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let tex = png(2, 2, [10, 200, 30, 255]);
    std::fs::create_dir(dir.path().join("my tex")).unwrap();
    std::fs::write(dir.path().join("my tex/skin tone.png"), &tex).unwrap();
    std::fs::write(
        dir.path().join("hero skin.mtl"),
        "newmtl skin\nKd 1 1 1\nmap_Kd my tex/skin tone.png\n",
    )
    .unwrap();
    let obj = "mtllib hero skin.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\n\
               usemtl skin\nf 1/1 2/2 3/3\nf 1/1 3/3 4/2\nf 1/1 4/2 2/2\nf 2/2 4/2 3/3\n";
    let input = dir.path().join("hero skin.obj");
    std::fs::write(&input, obj).unwrap();
    let (j, bin, loaded) = rig_and_check(&input, dir.path());
    let w = &loaded.source.as_ref().unwrap().warnings;
    assert!(w.is_empty(), "{w:?}");
    // The image is named by its file alone: the GLB does not carry the folders of the machine
    // that rigged it (the mesh was given by an absolute path).
    assert_eq!(j["images"][0]["name"], "skin tone.png");
    assert_eq!(
        source_support::base_color_image(&j, &bin, &j["materials"][0]),
        &tex[..]
    );
}

#[test]
fn missing_texture_and_mtl_are_warnings_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.mtl"), "newmtl a\nmap_Kd gone.png\n").unwrap();
    let obj = "mtllib a.mtl nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\n\
               usemtl a\nf 1/1 2/1 3/1\nf 1/1 3/1 4/1\nf 1/1 4/1 2/1\nf 2/1 4/1 3/1\n";
    let input = dir.path().join("t.obj");
    std::fs::write(&input, obj).unwrap();
    let (j, _, loaded) = rig_and_check(&input, dir.path());
    let w = &loaded.source.as_ref().unwrap().warnings;
    assert!(w.iter().any(|m| m.contains("gone.png")), "{w:?}");
    assert!(w.iter().any(|m| m.contains("nowhere.mtl")), "{w:?}");
    assert!(j["materials"][0]["pbrMetallicRoughness"]
        .get("baseColorTexture")
        .is_none());
}

#[test]
fn gltf_two_primitives_two_materials_morph_target_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = source_support::two_primitive_gltf(dir.path());
    let (input_json, input_bin) = source_support::read_gltf(&input);
    let (j, bin, loaded) = rig_and_check(&input, dir.path());
    assert_eq!(
        loaded.source.as_ref().unwrap().warnings,
        Vec::<String>::new()
    );
    assert_eq!(
        j["materials"], input_json["materials"],
        "materials unchanged"
    );
    assert_eq!(j["nodes"][0]["name"], input_json["nodes"][0]["name"]);
    assert_eq!(j["nodes"][1]["name"], input_json["nodes"][1]["name"]);
    assert_eq!(j["nodes"][0]["children"], json!([1]), "hierarchy kept");
    let (pi, po) = (
        &input_json["meshes"][0]["primitives"],
        &j["meshes"][0]["primitives"],
    );
    assert_eq!(po.as_array().unwrap().len(), 2);
    for k in 0..2 {
        assert_eq!(po[k]["material"], pi[k]["material"]);
        for (name, acc) in pi[k]["attributes"].as_object().unwrap() {
            let out = po[k]["attributes"][name].as_u64().expect(name);
            assert_eq!(
                accessor_bytes(&j, &bin, out),
                accessor_bytes(&input_json, &input_bin, acc.as_u64().unwrap()),
                "{name} data changed"
            );
        }
        let t_in = pi[k]["targets"][0]["POSITION"].as_u64();
        let t_out = po[k]["targets"][0]["POSITION"].as_u64();
        assert_eq!(t_in.is_some(), t_out.is_some(), "morph target kept");
        if let (Some(a), Some(b)) = (t_in, t_out) {
            assert_eq!(
                accessor_bytes(&j, &bin, b),
                accessor_bytes(&input_json, &input_bin, a)
            );
        }
    }
    assert_eq!(
        j["meshes"][0]["weights"],
        input_json["meshes"][0]["weights"]
    );
    // We wrote it (the watcher skips files that say so), and the source's writer is still named.
    let generator = j["asset"]["generator"].as_str().unwrap();
    assert!(generator.starts_with("geppetto "), "{generator}");
    if let Some(before) = input_json["asset"]["generator"].as_str() {
        assert!(
            generator.ends_with(&format!("(from {before})")),
            "{generator}"
        );
    }
    // The external image is now embedded.
    assert!(j["images"][0].get("uri").is_none());
    let v = j["images"][0]["bufferView"].as_u64().unwrap();
    assert_eq!(
        source_support::view_bytes(&j, &bin, v),
        &std::fs::read(dir.path().join("tex.png")).unwrap()[..]
    );
}

#[test]
fn fox_round_trip_keeps_every_attribute_material_and_image() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let fox = corpus.join("gltf/fox.glb");
    let pipeline = geppetto::Pipeline::default();
    let skeleton = std::sync::Arc::new(geppetto::skeleton::load_template("quadruped").unwrap());
    let req = geppetto::RigRequest::with_sidecar(&fox, skeleton).unwrap();
    let outcome = pipeline.rig(&req, &geppetto::NoProgress).expect("rig fox");
    let dir = tempfile::tempdir().unwrap();
    let written =
        geppetto::export::write_outputs(&outcome, dir.path(), &[geppetto::export::Format::Glb])
            .expect("write");
    let out = &written[0];
    if let Some((ok, report)) = skin_common::gltf_validator(&[out]) {
        println!("{report}");
        assert!(ok, "validator reported errors:\n{report}");
    }
    let (ji, bi) = split_glb(&std::fs::read(&fox).unwrap());
    let (jo, bo) = split_glb(&std::fs::read(out).unwrap());
    assert_eq!(jo["materials"], ji["materials"]);
    assert_eq!(jo["textures"], ji["textures"]);
    assert_eq!(jo["samplers"], ji["samplers"]);
    let images_in: Vec<&[u8]> = (0..ji["images"].as_array().unwrap().len())
        .map(|i| {
            source_support::view_bytes(&ji, &bi, ji["images"][i]["bufferView"].as_u64().unwrap())
        })
        .collect();
    for (i, img) in images_in.iter().enumerate() {
        let v = jo["images"][i]["bufferView"].as_u64().unwrap();
        assert_eq!(source_support::view_bytes(&jo, &bo, v), *img, "image {i}");
    }
    for (m, mesh) in ji["meshes"].as_array().unwrap().iter().enumerate() {
        for (k, p) in mesh["primitives"].as_array().unwrap().iter().enumerate() {
            let q = &jo["meshes"][m]["primitives"][k];
            assert_eq!(q["material"], p["material"]);
            for (name, acc) in p["attributes"].as_object().unwrap() {
                let o = q["attributes"][name]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{name} lost"));
                let (ca, co) = (
                    &ji["accessors"][acc.as_u64().unwrap() as usize],
                    &jo["accessors"][o as usize],
                );
                assert_eq!(ca["count"], co["count"], "vertex count of {name}");
                if !name.starts_with("JOINTS_") && !name.starts_with("WEIGHTS_") {
                    assert_eq!(
                        accessor_bytes(&jo, &bo, o),
                        accessor_bytes(&ji, &bi, acc.as_u64().unwrap()),
                        "{name}"
                    );
                }
            }
        }
    }
    // The bind pose renders where the input did.
    let (a, b) = (load(&fox).unwrap(), load(out).unwrap());
    assert_eq!(a.positions.len(), b.positions.len());
    let ext = a.aabb().max_extent();
    let worst = a
        .positions
        .iter()
        .zip(&b.positions)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-5 * ext, "bind pose moved by {worst}");
    assert!(
        jo.get("animations").is_none(),
        "old animations dropped with the old skeleton"
    );
    let _ = write_glb; // used by other tests of this file
}

#[test]
fn ply_vertex_colours_become_color_0() {
    let dir = tempfile::tempdir().unwrap();
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
               property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n\
               element face 4\nproperty list uchar int vertex_indices\nend_header\n\
               0 0 0 255 0 0\n1 0 0 0 255 0\n0 1 0 0 0 255\n0 0 1 255 255 255\n\
               3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    let input = dir.path().join("c.ply");
    std::fs::write(&input, ply).unwrap();
    let (j, bin, loaded) = rig_and_check(&input, dir.path());
    assert_eq!(loaded.mesh.positions.len(), 4);
    let p = &j["meshes"][0]["primitives"][0];
    let c = accessor_f32(
        &j,
        &bin,
        p["attributes"]["COLOR_0"].as_u64().expect("COLOR_0"),
    );
    assert_eq!(&c[..8], &[1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
    assert_eq!(&c[12..16], &[1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn fbx_textured_becomes_a_textured_skinned_glb() {
    use source_support::fbx::{ascii_fbx, column, FbxSpec};
    let dir = tempfile::tempdir().unwrap();
    let tex = png(4, 2, [90, 60, 30, 255]);
    std::fs::write(dir.path().join("skin.png"), &tex).unwrap();
    let (positions, quads) = column(4);
    let spec = FbxSpec {
        positions: positions.clone(),
        quads,
        texture: "skin.png".into(),
        skeleton: None,
    };
    let input = dir.path().join("column.fbx");
    std::fs::write(&input, ascii_fbx(&spec)).unwrap();
    let (j, bin, loaded) = rig_and_check(&input, dir.path());
    // Control points in file order, metres, +Y up (the file says so: no conversion).
    assert_eq!(loaded.mesh.positions.len(), positions.len());
    for (p, q) in loaded.mesh.positions.iter().zip(&positions) {
        assert!(
            (p - geppetto::geom::P3::new(q[0], q[1], q[2])).norm() < 1e-9,
            "{p} vs {q:?}"
        );
    }
    assert!(loaded.source.as_ref().unwrap().warnings.is_empty());
    let p = &j["meshes"][0]["primitives"][0];
    for a in ["POSITION", "NORMAL", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0"] {
        assert!(p["attributes"].get(a).is_some(), "{a} missing");
    }
    // Hard edges: each side quad has its own normal, so corners split (4 per quad).
    let n = j["accessors"][p["attributes"]["POSITION"].as_u64().unwrap() as usize]["count"]
        .as_u64()
        .unwrap();
    assert_eq!(n, 4 * 14);
    let m = &j["materials"][p["material"].as_u64().unwrap() as usize];
    assert_eq!(m["name"], "skin");
    assert_eq!(source_support::base_color_image(&j, &bin, m), &tex[..]);
}

#[test]
fn fbx_skeleton_is_a_skeleton_source() {
    use source_support::fbx::{ascii_fbx, column, FbxSpec};
    let dir = tempfile::tempdir().unwrap();
    let (positions, quads) = column(5);
    let spec = FbxSpec {
        positions,
        quads,
        texture: "missing.png".into(),
        skeleton: Some((0.5, 3.0)),
    };
    let input = dir.path().join("rigged.fbx");
    std::fs::write(&input, ascii_fbx(&spec)).unwrap();
    let r = geppetto::mesh::load::load_rigged(&input).expect("rigged FBX");
    let names: Vec<&str> = r.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["hips", "chest"]);
    assert_eq!(r.joints[1].parent, Some(0));
    assert!(
        (r.joints[0].position[1] - 0.5).abs() < 1e-9
            && (r.joints[1].position[1] - 3.0).abs() < 1e-9
    );
    let skin = r.skin.expect("weights");
    // The top ring (y = 4) follows the chest only, the bottom ring (y = 0) the hips only.
    assert_eq!(skin[16], vec![(1, 1.0)]);
    assert_eq!(skin[0], vec![(0, 1.0)]);
    // `attach --skeleton-from` reads it; the missing texture is a warning naming the file.
    let joints = geppetto::rig::read::read_joints(&input).expect("joints");
    assert_eq!(joints.len(), 2);
    let loaded = load_with_source(&input).unwrap();
    let w = &loaded.source.unwrap().warnings;
    assert!(w.iter().any(|m| m.contains("missing.png")), "{w:?}");
}

#[test]
fn keep_animations_reuses_the_artist_joints_and_keeps_the_clips() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let fox = corpus.join("gltf/fox.glb");
    let rigged = geppetto::mesh::load::load_rigged_gltf(&fox).unwrap();
    let loaded = load_with_source(&fox).unwrap();
    let src = loaded.source.as_ref().unwrap();
    let skin = rigged.skin.as_ref().unwrap();
    let bytes = source_glb_bytes(src, &rigged.joints, Some(skin), true).expect("keep");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fox_anim.glb");
    std::fs::write(&out, &bytes).unwrap();
    if let Some((ok, report)) = skin_common::gltf_validator(&[&out]) {
        println!("{report}");
        assert!(ok, "validator reported errors:\n{report}");
    }
    let (ji, _) = split_glb(&std::fs::read(&fox).unwrap());
    let (jo, _) = split_glb(&bytes);
    assert_eq!(
        jo["animations"].as_array().map(Vec::len),
        ji["animations"].as_array().map(Vec::len)
    );
    let node_name = |j: &Value, n: &Value| j["nodes"][n.as_u64().unwrap() as usize]["name"].clone();
    for (a, b) in ji["animations"]
        .as_array()
        .unwrap()
        .iter()
        .zip(jo["animations"].as_array().unwrap())
    {
        for (ca, cb) in a["channels"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["channels"].as_array().unwrap())
        {
            assert_eq!(
                node_name(&ji, &ca["target"]["node"]),
                node_name(&jo, &cb["target"]["node"])
            );
        }
    }
    // The new skin drives the artist's own joint nodes.
    let joints_out: Vec<Value> = jo["skins"][0]["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| node_name(&jo, n))
        .collect();
    let names: Vec<Value> = rigged.joints.iter().map(|j| json!(j.name)).collect();
    assert_eq!(joints_out, names);
    let (a, b) = (load(&fox).unwrap(), load(&out).unwrap());
    let ext = a.aabb().max_extent();
    let worst = a
        .positions
        .iter()
        .zip(&b.positions)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-5 * ext, "bind pose moved by {worst}");
    // A skeleton that is not the file's cannot keep its animations.
    let mut other = rigged.joints.clone();
    other[0].name = "not_in_the_file".into();
    let err = source_glb_bytes(src, &other, Some(skin), true)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--keep-animations") && err.contains("not_in_the_file"),
        "{err}"
    );
}

/// `geppetto rig sub/hero.obj` from the folder above (a relative path with a folder, the
/// everyday case): the texture the `.mtl` names relative to itself is found and embedded. Before,
/// the `.mtl`'s folder was joined into the texture path and again in the lookup, so the GLB came
/// out untextured with the warning "texture sub/sub/tex/skin.png not found".
#[test]
fn a_textured_obj_given_by_a_relative_path_keeps_its_texture() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir_all(sub.join("tex")).unwrap();
    let tex = png(2, 2, [90, 20, 200, 255]);
    std::fs::write(sub.join("tex/skin.png"), &tex).unwrap();
    std::fs::write(sub.join("hero.mtl"), "newmtl skin\nmap_Kd tex/skin.png\n").unwrap();
    // The demo humanoid with one texture coordinate on every corner.
    let plain = geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh);
    let mut obj = String::from("mtllib hero.mtl\nvt 0.5 0.5\nusemtl skin\n");
    for line in plain.lines() {
        match line.strip_prefix("f ") {
            Some(f) => {
                let corners: Vec<String> = f.split_whitespace().map(|v| format!("{v}/1")).collect();
                obj += &format!("f {}\n", corners.join(" "));
            }
            None => obj += &format!("{line}\n"),
        }
    }
    std::fs::write(sub.join("hero.obj"), obj).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["rig", "sub/hero.obj", "--out", "out"])
        .current_dir(dir.path())
        .output()
        .expect("run geppetto");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("not found"), "{stderr}");
    let (j, bin) = split_glb(&std::fs::read(dir.path().join("out/hero.glb")).unwrap());
    assert_eq!(
        source_support::base_color_image(&j, &bin, &j["materials"][0]),
        &tex[..]
    );
}
