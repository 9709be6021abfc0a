//! Wavefront OBJ reader.
//!
//! Hand-written rather than `tobj`: tobj splits `o`/`g` groups into separate models and re-indexes
//! each model's vertices, but every per-vertex output of Geppetto must refer to the file's own `v`
//! lines (the original Pinocchio reader drops and renumbers vertices, docs/algorithms.md#load-and-prepare). Here all `v` lines form
//! one global list in file order, whatever the groups, and unreferenced vertices are kept.
//!
//! Handled: `v x y z [w]` and `v x y z r g b` (extra values ignored); `f` corners as `v`, `v/vt`,
//! `v//vn`, `v/vt/vn`, with negative (relative) indices; polygons ear-clipped in their plane
//! (see [`super::polygon`]); `\` line continuation; CRLF; `#` comments; non-UTF-8 bytes outside
//! numbers; `vt`, `vn`, `usemtl` and `mtllib` for the textured output ([`ObjExtras`], a bad
//! `vt`/`vn` never fails the mesh). Ignored: `vp o g s l p` and any unknown statement.

use super::number::i64_of;
use super::polygon::triangulate_corners;
use super::text::{logical_lines, not_text, parse_f64, parse_i64, show, size_text, syntax, tokens};
use super::LoadError;
use crate::geom::P3;
use crate::mesh::Mesh;

/// One `f` statement before index resolution: corner indices (0-based, unchecked) and its line.
struct Face {
    line: usize,
    start: usize,
    end: usize,
    material: Option<usize>,
}

/// What an OBJ carries besides positions and faces, per triangle of the [`Mesh`].
#[derive(Clone, Debug, Default)]
pub(crate) struct ObjExtras {
    /// `vt` lines (u, v), in file order.
    pub uvs: Vec<[f32; 2]>,
    /// `vn` lines, in file order.
    pub normals: Vec<[f32; 3]>,
    /// Per mesh triangle, per corner: its `vt` and `vn` index, if given and in range.
    pub corners: Vec<[(Option<u32>, Option<u32>); 3]>,
    /// Per mesh triangle: its `usemtl` material (index into `material_names`).
    pub materials: Vec<Option<usize>>,
    /// Material names in order of first `usemtl`.
    pub material_names: Vec<String>,
    /// The text of each `mtllib` line (one or more file names), in file order.
    pub mtllibs: Vec<String>,
}

impl ObjExtras {
    /// True if there is anything to keep beyond positions and faces.
    pub fn is_empty(&self) -> bool {
        self.corners
            .iter()
            .flatten()
            .all(|c| c.0.is_none() && c.1.is_none())
            && self.material_names.is_empty()
    }
}

/// Per corner of every face: (`v`, `vt`, `vn`) indices, 0-based and unchecked.
type Corner = (i64, Option<i64>, Option<i64>);

/// Parse OBJ bytes. Face indices may refer to vertices defined later in the file (some exporters
/// do this), so faces are resolved against the final vertex count.
pub(crate) fn parse(bytes: &[u8]) -> Result<Mesh, LoadError> {
    parse_full(bytes).map(|(m, _)| m)
}

/// Parse OBJ bytes with texture coordinates, normals and materials ([`ObjExtras`]). Bad `vt`/`vn`
/// data never fails the mesh: an unreadable `vt`/`vn` line reads as zeros, an out-of-range
/// `vt`/`vn` index as absent.
pub(crate) fn parse_full(bytes: &[u8]) -> Result<(Mesh, ObjExtras), LoadError> {
    if let Some(e) = not_text(bytes, "OBJ") {
        return Err(e);
    }
    let mut positions: Vec<P3> = Vec::new();
    let mut corners: Vec<Corner> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    let mut ex = ObjExtras::default();
    let mut material = None;
    for (line_no, line) in logical_lines(bytes, true) {
        // `#` starts a comment anywhere on a line (some exporters annotate `v`/`f` lines).
        let body = line.split(|&b| b == b'#').next().unwrap_or(&[]);
        let mut toks = tokens(body);
        let Some(keyword) = toks.next() else {
            continue;
        };
        match keyword {
            b"v" => positions.push(vertex(toks, line_no)?),
            b"vt" => ex.uvs.push(floats::<2>(toks)),
            b"vn" => ex.normals.push(floats::<3>(toks)),
            b"f" | b"fo" => {
                let start = corners.len();
                for t in toks {
                    corners.push(corner(t, line_no, &positions, &ex)?);
                }
                faces.push(face(line_no, start, corners.len(), material)?);
            }
            b"usemtl" => material = Some(material_index(&mut ex, rest_of(body))),
            // Kept whole: `mtllib hero skin.mtl` is one file with a space (what Blender writes for
            // `hero skin.obj`) or two libraries; only the folder can tell (`obj_source`).
            b"mtllib" => ex.mtllibs.push(rest_of(body)),
            _ => {}
        }
    }
    if positions.is_empty() && faces.is_empty() {
        return Err(LoadError::Invalid(format!(
            "not an OBJ mesh: no vertex (`v`) or face (`f`) lines in {} of text",
            size_text(bytes.len())
        )));
    }
    let triangles = resolve_faces(&positions, &corners, &faces, &mut ex)?;
    Ok((
        Mesh {
            positions,
            triangles,
        },
        ex,
    ))
}

/// The face of corners `start..end` read on line `line_no`; fewer than 3 corners is an error.
fn face(
    line_no: usize,
    start: usize,
    end: usize,
    material: Option<usize>,
) -> Result<Face, LoadError> {
    let n = end - start;
    if n < 3 {
        return Err(syntax(
            line_no,
            format!("face has {n} vertices, expected ≥ 3"),
        ));
    }
    Ok(Face {
        line: line_no,
        start,
        end,
        material,
    })
}

/// A `v` line's position (its first three numbers; a colour after them is ignored).
fn vertex<'a>(mut toks: impl Iterator<Item = &'a [u8]>, line_no: usize) -> Result<P3, LoadError> {
    let mut xyz = [0.0; 3];
    for (k, c) in xyz.iter_mut().enumerate() {
        let t = toks
            .next()
            .ok_or_else(|| syntax(line_no, format!("vertex has {k} coordinates, expected 3")))?;
        *c = parse_f64(t, line_no, "vertex coordinate")?;
    }
    Ok(P3::new(xyz[0], xyz[1], xyz[2]))
}

/// Triangulate every face (corner numbers kept for the per-corner data) and check indices.
fn resolve_faces(
    positions: &[P3],
    corners: &[Corner],
    faces: &[Face],
    ex: &mut ObjExtras,
) -> Result<Vec<[u32; 3]>, LoadError> {
    let count = positions.len();
    let mut triangles = Vec::with_capacity(corners.len().saturating_sub(faces.len() * 2));
    let mut poly: Vec<u32> = Vec::new();
    let mut local: Vec<[u32; 3]> = Vec::new();
    let in_range = |i: Option<i64>, n: usize| {
        i.and_then(|i| u32::try_from(i).ok())
            .filter(|&i| (i as usize) < n)
    };
    for (face_no, face) in faces.iter().enumerate() {
        poly.clear();
        let fc = corners.get(face.start..face.end).unwrap_or(&[]);
        for &(index, _, _) in fc {
            match u32::try_from(index) {
                Ok(i) if (i as usize) < count => poly.push(i),
                _ => {
                    return Err(LoadError::BadIndex {
                        face: face_no,
                        index,
                        count,
                        line: Some(face.line),
                    })
                }
            }
        }
        local.clear();
        triangulate_corners(positions, &poly, &mut local);
        for t in &local {
            triangles.push(t.map(|k| poly[k as usize]));
            ex.corners.push(t.map(|k| {
                let (_, vt, vn) = fc[k as usize];
                (in_range(vt, ex.uvs.len()), in_range(vn, ex.normals.len()))
            }));
            ex.materials.push(face.material);
        }
    }
    Ok(triangles)
}

/// The first `N` numbers of a `vt`/`vn` line; missing or unreadable values are 0.
fn floats<'a, const N: usize>(toks: impl Iterator<Item = &'a [u8]>) -> [f32; N] {
    let mut out = [0f32; N];
    for (o, t) in out.iter_mut().zip(toks) {
        *o = std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.parse::<f32>().ok())
            .filter(|v| v.is_finite())
            .unwrap_or(0.0);
    }
    out
}

/// Everything after the keyword (material names may contain spaces).
fn rest_of(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let t = text.trim();
    t.split_once(char::is_whitespace)
        .map_or("", |(_, rest)| rest.trim())
        .to_string()
}

/// The index of material `name`, added on first use.
fn material_index(ex: &mut ObjExtras, name: String) -> usize {
    match ex.material_names.iter().position(|m| *m == name) {
        Some(i) => i,
        None => {
            ex.material_names.push(name);
            ex.material_names.len() - 1
        }
    }
}

/// One face corner `v[/vt[/vn]]`, each index 0-based (relative indices resolved against what was
/// defined so far). Only `v` is checked here; `vt`/`vn` are checked after the file is read.
fn corner(
    token: &[u8],
    line: usize,
    positions: &[P3],
    ex: &ObjExtras,
) -> Result<Corner, LoadError> {
    let v = corner_index(token, line, positions.len())?;
    let mut parts = token.split(|&b| b == b'/').skip(1);
    let mut attr = |defined: usize| {
        parts
            .next()
            .filter(|p| !p.is_empty())
            .and_then(i64_of)
            .and_then(|i| match i {
                0 => None,
                i if i > 0 => Some(i - 1),
                i => Some(defined as i64 + i),
            })
    };
    let vt = attr(ex.uvs.len());
    let vn = attr(ex.normals.len());
    Ok((v, vt, vn))
}

/// The 0-based vertex index of one face corner `v[/vt[/vn]]`. Negative indices count back from
/// the `defined` vertices read so far (OBJ relative indexing); 0 is invalid.
fn corner_index(token: &[u8], line: usize, defined: usize) -> Result<i64, LoadError> {
    let v = token.split(|&b| b == b'/').next().unwrap_or(token);
    let i = parse_i64(v, line, "face vertex index")?;
    match i {
        0 => Err(syntax(
            line,
            format!(
                "face vertex index 0 in '{}' (OBJ indices start at 1)",
                show(token)
            ),
        )),
        i if i > 0 => Ok(i - 1),
        i => Ok(defined as i64 + i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_corner_forms_and_negative_indices() {
        let src =
            b"# test\r\nmtllib a.mtl\no one\nv 0 0 0 1\nv 1 0 0 0.5 0.5 0.5\nv 1 1 0\nv 0 1 0\n\
vt 0 0\nvn 0 0 1\ng grp\nusemtl m\ns 1\nf 1/1/1 2//1 3/1\nf -4 -2 -1\nl 1 2\np 3\n";
        let m = parse(src).unwrap();
        assert_eq!(m.positions.len(), 4);
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn quad_polygon_and_continuation() {
        let m = parse(b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 \\\n 3 4\n").unwrap();
        assert_eq!(m.triangles.len(), 2);
    }

    #[test]
    fn vertices_kept_in_file_order_across_groups() {
        let src = b"o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 9 9 9\no b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 5 6 7\nf 1 2 3\n";
        let m = parse(src).unwrap();
        assert_eq!(m.positions.len(), 7);
        assert_eq!(m.positions[3], P3::new(9.0, 9.0, 9.0));
        assert_eq!(m.triangles, vec![[4, 5, 6], [0, 1, 2]]);
    }

    #[test]
    fn errors_name_the_line() {
        match parse(b"v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 5\n") {
            Err(LoadError::BadIndex {
                face: 0,
                index: 4,
                count: 3,
                line: Some(5),
            }) => {}
            other => panic!("{other:?}"),
        }
        match parse(b"v 0 0\n") {
            Err(LoadError::Syntax { line: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
        match parse(b"v 0 0 0\nv 1 0 0\nv 0 x 0\n") {
            Err(LoadError::Syntax { line: 3, .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(parse(b"v 0 0 0\nf 1 -9 1\n").is_err());
        assert!(parse(b"v 0 0 0\nf 0 1 1\n").is_err());
    }

    #[test]
    fn non_utf8_bytes_in_names_and_comments_are_tolerated() {
        let src = b"# caf\xe9\ng \xff\xfe\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        assert_eq!(parse(src).unwrap().triangles.len(), 1);
    }
}
