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
//! numbers. Ignored: `vt vn vp o g s usemtl mtllib l p` and any unknown statement.

use super::polygon::triangulate;
use super::text::{logical_lines, parse_f64, parse_i64, show, syntax, tokens};
use super::LoadError;
use crate::geom::P3;
use crate::mesh::Mesh;

/// One `f` statement before index resolution: corner indices (0-based, unchecked) and its line.
struct Face {
    line: usize,
    start: usize,
    end: usize,
}

/// Parse OBJ bytes. Face indices may refer to vertices defined later in the file (some exporters
/// do this), so faces are resolved against the final vertex count.
pub(crate) fn parse(bytes: &[u8]) -> Result<Mesh, LoadError> {
    let mut positions: Vec<P3> = Vec::new();
    let mut corners: Vec<i64> = Vec::new();
    let mut faces: Vec<Face> = Vec::new();
    for (line_no, line) in logical_lines(bytes, true) {
        // `#` starts a comment anywhere on a line (some exporters annotate `v`/`f` lines).
        let body = line.split(|&b| b == b'#').next().unwrap_or(&[]);
        let mut toks = tokens(body);
        let Some(keyword) = toks.next() else {
            continue;
        };
        match keyword {
            b"v" => {
                let mut xyz = [0.0; 3];
                for (k, c) in xyz.iter_mut().enumerate() {
                    let t = toks.next().ok_or_else(|| {
                        syntax(line_no, format!("vertex has {k} coordinates, expected 3"))
                    })?;
                    *c = parse_f64(t, line_no, "vertex coordinate")?;
                }
                positions.push(P3::new(xyz[0], xyz[1], xyz[2]));
            }
            b"f" | b"fo" => {
                let start = corners.len();
                for t in toks {
                    corners.push(corner_index(t, line_no, positions.len())?);
                }
                let n = corners.len() - start;
                if n < 3 {
                    return Err(syntax(
                        line_no,
                        format!("face has {n} vertices, expected ≥ 3"),
                    ));
                }
                faces.push(Face {
                    line: line_no,
                    start,
                    end: corners.len(),
                });
            }
            _ => {}
        }
    }
    let count = positions.len();
    let mut triangles = Vec::with_capacity(corners.len().saturating_sub(faces.len() * 2));
    let mut poly: Vec<u32> = Vec::new();
    for (face_no, face) in faces.iter().enumerate() {
        poly.clear();
        for &index in corners.get(face.start..face.end).unwrap_or(&[]) {
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
        triangulate(&positions, &poly, &mut triangles);
    }
    Ok(Mesh {
        positions,
        triangles,
    })
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
