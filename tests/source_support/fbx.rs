//! A small ASCII FBX 7.4 writer for tests: one quad-mesh with per-corner UVs and normals, one
//! Lambert material with a diffuse texture file, and optionally a two-bone skeleton with a skin.

use std::fmt::Write;

/// A quad mesh to write (positions in metres, +Y up).
pub struct FbxSpec {
    pub positions: Vec<[f64; 3]>,
    /// Quads (0-based position indices), each corner with a UV and the face's normal.
    pub quads: Vec<[u32; 4]>,
    /// Texture file name (relative to the FBX).
    pub texture: String,
    /// Two bones (hips at y0, chest at y1) skinning every vertex by height.
    pub skeleton: Option<(f64, f64)>,
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("*{} {{\n\t\t\ta: {}\n\t\t}}", v.len(), items.join(","))
}

fn face_normal(p: &[[f64; 3]], q: &[u32; 4]) -> [f64; 3] {
    let [a, b, c] = [p[q[0] as usize], p[q[1] as usize], p[q[2] as usize]];
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-12);
    n.map(|x| x / l)
}

/// The FBX text.
pub fn ascii_fbx(spec: &FbxSpec) -> String {
    let verts: Vec<f64> = spec.positions.iter().flatten().copied().collect();
    let mut pvi: Vec<i64> = Vec::new();
    let mut normals: Vec<f64> = Vec::new();
    let mut uv_index: Vec<i64> = Vec::new();
    let uvs = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
    for q in &spec.quads {
        let n = face_normal(&spec.positions, q);
        for (k, &v) in q.iter().enumerate() {
            pvi.push(if k == 3 {
                -(i64::from(v) + 1)
            } else {
                i64::from(v)
            });
            normals.extend(n);
            uv_index.push(k as i64);
        }
    }
    let mut s = String::new();
    s.push_str("; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n");
    s.push_str("GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n");
    for (k, v) in [
        ("UpAxis", 1),
        ("UpAxisSign", 1),
        ("FrontAxis", 2),
        ("FrontAxisSign", 1),
        ("CoordAxis", 0),
        ("CoordAxisSign", 1),
    ] {
        let _ = writeln!(s, "\t\tP: \"{k}\", \"int\", \"Integer\", \"\",{v}");
    }
    s.push_str("\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n\t}\n}\n");
    s.push_str("Objects:  {\n");
    let _ = write!(
        s,
        "\tGeometry: 100, \"Geometry::body\", \"Mesh\" {{\n\t\tVertices: {}\n\t\tPolygonVertexIndex: {}\n\t\tGeometryVersion: 124\n",
        list(&verts),
        list(&pvi)
    );
    let _ = write!(
        s,
        "\t\tLayerElementNormal: 0 {{\n\t\t\tVersion: 102\n\t\t\tName: \"\"\n\t\t\tMappingInformationType: \"ByPolygonVertex\"\n\t\t\tReferenceInformationType: \"Direct\"\n\t\t\tNormals: {}\n\t\t}}\n",
        list(&normals)
    );
    let _ = write!(
        s,
        "\t\tLayerElementUV: 0 {{\n\t\t\tVersion: 101\n\t\t\tName: \"map1\"\n\t\t\tMappingInformationType: \"ByPolygonVertex\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n\t\t\tUV: {}\n\t\t\tUVIndex: {}\n\t\t}}\n",
        list(&uvs),
        list(&uv_index)
    );
    s.push_str("\t\tLayerElementMaterial: 0 {\n\t\t\tVersion: 101\n\t\t\tName: \"\"\n\t\t\tMappingInformationType: \"AllSame\"\n\t\t\tReferenceInformationType: \"IndexToDirect\"\n\t\t\tMaterials: *1 {\n\t\t\t\ta: 0\n\t\t\t}\n\t\t}\n");
    s.push_str("\t\tLayer: 0 {\n\t\t\tVersion: 100\n");
    for t in [
        "LayerElementNormal",
        "LayerElementUV",
        "LayerElementMaterial",
    ] {
        let _ = writeln!(
            s,
            "\t\t\tLayerElement:  {{\n\t\t\t\tType: \"{t}\"\n\t\t\t\tTypedIndex: 0\n\t\t\t}}"
        );
    }
    s.push_str("\t\t}\n\t}\n");
    s.push_str("\tModel: 200, \"Model::body\", \"Mesh\" {\n\t\tVersion: 232\n\t}\n");
    s.push_str("\tMaterial: 300, \"Material::skin\", \"\" {\n\t\tVersion: 102\n\t\tShadingModel: \"lambert\"\n\t\tProperties70:  {\n\t\t\tP: \"DiffuseColor\", \"Color\", \"\", \"A\",0.8,0.6,0.5\n\t\t}\n\t}\n");
    let _ = write!(
        s,
        "\tTexture: 400, \"Texture::skin\", \"\" {{\n\t\tType: \"TextureVideoClip\"\n\t\tVersion: 202\n\t\tTextureName: \"Texture::skin\"\n\t\tFileName: \"/nonexistent/dir/{0}\"\n\t\tRelativeFilename: \"{0}\"\n\t}}\n",
        spec.texture
    );
    let mut conns = vec![
        "C: \"OO\",200,0".to_string(),
        "C: \"OO\",100,200".to_string(),
        "C: \"OO\",300,200".to_string(),
        "C: \"OP\",400,300, \"DiffuseColor\"".to_string(),
    ];
    if let Some((y0, y1)) = spec.skeleton {
        skeleton(&mut s, &mut conns, &spec.positions, y0, y1);
    }
    s.push_str("}\nConnections:  {\n");
    for c in conns {
        let _ = writeln!(s, "\t{c}");
    }
    s.push_str("}\n");
    s
}

/// Two limb nodes (hips at `y0`, chest `y1` above it) and a skin deformer weighting each vertex
/// by its height between them.
fn skeleton(s: &mut String, conns: &mut Vec<String>, p: &[[f64; 3]], y0: f64, y1: f64) {
    for (id, name, t, parent) in [(500, "hips", y0, 0), (600, "chest", y1 - y0, 500)] {
        let _ = write!(
            s,
            "\tModel: {id}, \"Model::{name}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,{t},0\n\t\t}}\n\t}}\n\tNodeAttribute: {}, \"NodeAttribute::{name}\", \"LimbNode\" {{\n\t\tTypeFlags: \"Skeleton\"\n\t}}\n",
            id + 10
        );
        conns.push(format!("C: \"OO\",{id},{parent}"));
        conns.push(format!("C: \"OO\",{},{id}", id + 10));
    }
    s.push_str("\tDeformer: 700, \"Deformer::skin\", \"Skin\" {\n\t\tVersion: 101\n\t}\n");
    conns.push("C: \"OO\",700,100".into());
    for (id, bone, y) in [(710, 500, y0), (720, 600, y1)] {
        let w: Vec<f64> = p
            .iter()
            .map(|v| {
                let t = ((v[1] - y0) / (y1 - y0)).clamp(0.0, 1.0);
                if bone == 500 {
                    1.0 - t
                } else {
                    t
                }
            })
            .collect();
        let idx: Vec<usize> = (0..p.len()).filter(|&i| w[i] > 0.0).collect();
        let ws: Vec<f64> = idx.iter().map(|&i| w[i]).collect();
        let _ = write!(
            s,
            "\tDeformer: {id}, \"SubDeformer::c{bone}\", \"Cluster\" {{\n\t\tVersion: 100\n\t\tIndexes: {}\n\t\tWeights: {}\n\t\tTransform: {}\n\t\tTransformLink: {}\n\t}}\n",
            list(&idx),
            list(&ws),
            list(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -y, 0.0, 1.0]),
            list(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, y, 0.0, 1.0]),
        );
        conns.push(format!("C: \"OO\",{id},700"));
        conns.push(format!("C: \"OO\",{bone},{id}"));
    }
}

/// A column of `rings` square rings (4 vertices each, side 1, y = 0..rings-1) with side quads
/// and end caps: a closed box-like character stand-in.
pub fn column(rings: usize) -> (Vec<[f64; 3]>, Vec<[u32; 4]>) {
    let mut p = Vec::new();
    for r in 0..rings {
        let y = r as f64;
        p.extend([[0.0, y, 0.0], [1.0, y, 0.0], [1.0, y, 1.0], [0.0, y, 1.0]]);
    }
    let mut q = Vec::new();
    for r in 0..rings as u32 - 1 {
        for k in 0..4u32 {
            let (a, b) = (r * 4 + k, r * 4 + (k + 1) % 4);
            q.push([a, b, b + 4, a + 4]);
        }
    }
    q.push([3, 2, 1, 0]);
    let t = (rings as u32 - 1) * 4;
    q.push([t, t + 1, t + 2, t + 3]);
    (p, q)
}
