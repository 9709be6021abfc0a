//! Object File Format reader (`OFF`, `COFF`, `NOFF`, `CNOFF`, `STOFF`, …).
//!
//! The original reads only triangles and fails on `OFF nv nf ne` on one line (Pinocchio source, `mesh.cpp`; docs/algorithms.md#load-and-prepare);
//! here the counts may follow the keyword on the same line or come on a later line, `#` comments
//! are ignored, faces may be polygons of any size (ear-clipped), and per-face colour values after
//! the indices are ignored. Vertices take the first three numbers of their line (normals, colours
//! and texture coordinates after them are ignored). Indices are 0-based.

use super::polygon::triangulate;
use super::text::{logical_lines, parse_f64, parse_i64, show, syntax, tokens};
use super::LoadError;
use crate::geom::P3;
use crate::mesh::Mesh;

/// Parse OFF bytes.
pub(crate) fn parse(bytes: &[u8]) -> Result<Mesh, LoadError> {
    parse_full(bytes).map(|(m, _)| m)
}

/// Where a vertex line's colour is: `COFF`-family keywords put RGB(A) after the position (and
/// after the normal for `CNOFF`), as 0–255 integers or 0–1 floats.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    color_at: Option<usize>,
}

/// A vertex line's colour, RGBA in [0, 1] (opaque if absent or unreadable).
fn vertex_color(toks: &[&[u8]], at: usize) -> [f32; 4] {
    let vals: Vec<&str> = toks
        .iter()
        .skip(at)
        .take(4)
        .filter_map(|t| std::str::from_utf8(t).ok())
        .collect();
    let ints = vals.iter().all(|v| !v.contains(['.', 'e', 'E']));
    let mut rgba = [1f32; 4];
    for (c, v) in rgba.iter_mut().zip(&vals) {
        if let Ok(x) = v.parse::<f32>() {
            *c = (if ints { x / 255.0 } else { x }).clamp(0.0, 1.0);
        }
    }
    rgba
}

/// Parse OFF bytes with the vertex colours of `COFF`/`CNOFF` files.
pub(crate) fn parse_full(bytes: &[u8]) -> Result<(Mesh, super::ply::VertexColors), LoadError> {
    let lines: Vec<_> = logical_lines(bytes, false).collect();
    // Content lines: comments stripped, blank lines dropped.
    let mut content = lines.iter().filter_map(|(n, l)| {
        let body = l.split(|&b| b == b'#').next().unwrap_or(&[]);
        let toks: Vec<&[u8]> = tokens(body).collect();
        (!toks.is_empty()).then_some((*n, toks))
    });
    let (nv, nf, count_line, layout) = header(&mut content)?;
    // Every vertex and face needs at least a few bytes: bound claimed counts by the file size so
    // a forged header cannot allocate absurdly.
    if nv.saturating_add(nf) > bytes.len() / 2 + 1 {
        return Err(syntax(
            count_line,
            format!("header claims {nv} vertices and {nf} faces, more than the file can hold"),
        ));
    }
    let (positions, colors) = vertices(&mut content, nv, &layout)?;
    let triangles = faces(&mut content, nf, &positions)?;
    Ok((
        Mesh {
            positions,
            triangles,
        },
        colors,
    ))
}

/// The `nv` vertex lines: positions, and colours when the layout has them.
fn vertices<'a>(
    content: &mut impl Iterator<Item = (usize, Vec<&'a [u8]>)>,
    nv: usize,
    layout: &Layout,
) -> Result<(Vec<P3>, super::ply::VertexColors), LoadError> {
    let mut colors = layout.color_at.map(|_| Vec::with_capacity(nv));
    let mut positions = Vec::with_capacity(nv);
    for k in 0..nv {
        let (n, toks) = content
            .next()
            .ok_or_else(|| LoadError::Invalid(format!("file ends after {k} of {nv} vertices")))?;
        if toks.len() < 3 {
            return Err(syntax(
                n,
                format!("vertex has {} coordinates, expected 3", toks.len()),
            ));
        }
        let c = |i: usize| parse_f64(toks[i], n, "vertex coordinate");
        positions.push(P3::new(c(0)?, c(1)?, c(2)?));
        if let (Some(list), Some(at)) = (colors.as_mut(), layout.color_at) {
            list.push(vertex_color(&toks, at));
        }
    }
    Ok((positions, colors))
}

/// The `nf` face lines, each polygon triangulated; indices must name one of the vertices.
fn faces<'a>(
    content: &mut impl Iterator<Item = (usize, Vec<&'a [u8]>)>,
    nf: usize,
    positions: &[P3],
) -> Result<Vec<[u32; 3]>, LoadError> {
    let nv = positions.len();
    let mut triangles = Vec::with_capacity(nf);
    let mut poly = Vec::new();
    for face in 0..nf {
        let (n, toks) = content
            .next()
            .ok_or_else(|| LoadError::Invalid(format!("file ends after {face} of {nf} faces")))?;
        let k = usize::try_from(parse_i64(toks[0], n, "face vertex count")?)
            .map_err(|_| syntax(n, "negative face vertex count"))?;
        let idx = toks.get(1..=k).ok_or_else(|| {
            syntax(
                n,
                format!("face lists {} of {k} vertex indices", toks.len() - 1),
            )
        })?;
        poly.clear();
        for t in idx {
            let i = parse_i64(t, n, "face vertex index")?;
            match u32::try_from(i) {
                Ok(v) if (v as usize) < nv => poly.push(v),
                _ => {
                    return Err(LoadError::BadIndex {
                        face,
                        index: i,
                        count: nv,
                        line: Some(n),
                    })
                }
            }
        }
        triangulate(positions, &poly, &mut triangles);
    }
    Ok(triangles)
}

/// The vertex and face counts (and the line they are on) from the `OFF` header, which may carry
/// them itself or be followed by them. `content` yields comment-free, non-blank lines.
fn header<'a>(
    content: &mut impl Iterator<Item = (usize, Vec<&'a [u8]>)>,
) -> Result<(usize, usize, usize, Layout), LoadError> {
    let (first_line, first) = content
        .next()
        .ok_or_else(|| LoadError::Invalid("empty OFF file".into()))?;
    let mut header: Vec<&[u8]> = first;
    let keyword = header.first().copied().unwrap_or(b"");
    let mut layout = Layout::default();
    if keyword.ends_with(b"OFF") {
        let prefix = &keyword[..keyword.len() - 3];
        if prefix.contains(&b'C') {
            layout.color_at = Some(if prefix.contains(&b'N') { 6 } else { 3 });
        }
        if keyword.contains(&b'4') || keyword.starts_with(b"n") {
            return Err(syntax(
                first_line,
                "only 3-dimensional OFF files are supported",
            ));
        }
        header.remove(0);
    } else if parse_i64(keyword, first_line, "").is_err() {
        return Err(syntax(
            first_line,
            format!("expected the OFF keyword, found '{}'", show(keyword)),
        ));
    }
    let mut count_line = first_line;
    if header.is_empty() {
        let (n, toks) = content
            .next()
            .ok_or_else(|| syntax(first_line, "missing vertex and face counts"))?;
        header = toks;
        count_line = n;
    }
    let count = |k: usize, what: &str| -> Result<usize, LoadError> {
        let t = header
            .get(k)
            .ok_or_else(|| syntax(count_line, format!("missing {what} count")))?;
        usize::try_from(parse_i64(t, count_line, what)?)
            .map_err(|_| syntax(count_line, format!("negative {what} count")))
    };
    Ok((count(0, "vertex")?, count(1, "face")?, count_line, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TET: &str = "0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";

    #[test]
    fn header_forms() {
        for head in [
            "OFF\n4 4 6\n",
            "OFF 4 4 6\n",
            "# c\nCOFF\n\n# more\n4 4 0\n",
            "NOFF 4 4\n",
            "4 4 6\n",
        ] {
            let m = parse(format!("{head}{TET}").as_bytes())
                .unwrap_or_else(|e| panic!("{head:?}: {e}"));
            assert_eq!((m.positions.len(), m.triangles.len()), (4, 4), "{head:?}");
        }
    }

    #[test]
    fn polygons_colours_and_comments() {
        let src = "OFF\n4 1 0\n0 0 0 1 0 0 1\n1 0 0\n1 1 0 # corner\n0 1 0\n4 0 1 2 3 255 0 0\n";
        let m = parse(src.as_bytes()).unwrap();
        assert_eq!(m.triangles.len(), 2);
        assert_eq!(m.positions[2], P3::new(1.0, 1.0, 0.0));
    }

    #[test]
    fn coff_and_cnoff_vertex_colours() {
        let src = "COFF\n3 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0\n0 1 0 0 0 255 128\n3 0 1 2\n";
        let (m, c) = parse_full(src.as_bytes()).unwrap();
        assert_eq!(m.positions.len(), 3);
        let c = c.expect("colours");
        assert_eq!(c[0], [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(c[1], [0.0, 1.0, 0.0, 1.0]);
        assert!((c[2][3] - 128.0 / 255.0).abs() < 1e-6);
        let src = "CNOFF 3 1 0\n0 0 0 0 0 1 0.5 0.25 1 1\n1 0 0 0 0 1 1 1 1 1\n0 1 0 0 0 1 1 1 1 1\n3 0 1 2\n";
        let (_, c) = parse_full(src.as_bytes()).unwrap();
        assert_eq!(c.unwrap()[0], [0.5, 0.25, 1.0, 1.0]);
        assert!(parse_full(b"OFF 3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
            .unwrap()
            .1
            .is_none());
    }

    #[test]
    fn errors() {
        assert!(matches!(
            parse(b"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"),
            Err(LoadError::BadIndex {
                index: 3,
                line: Some(6),
                ..
            })
        ));
        assert!(matches!(
            parse(b"OFF\n3 1 0\n0 0 0\n1 0\n"),
            Err(LoadError::Syntax { line: 4, .. })
        ));
        assert!(parse(b"OFF\n1000000000000 1 0\n").is_err());
        assert!(parse(b"OFF\n3 1 0\n0 0 0\n").is_err());
        assert!(parse(b"PLY\n").is_err());
        assert!(parse(b"").is_err());
    }
}
