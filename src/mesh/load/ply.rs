//! Stanford PLY reader: `ascii`, `binary_little_endian` and `binary_big_endian`.
//!
//! The original reads ASCII only and remaps axes (Pinocchio source, `mesh.cpp`; docs/algorithms.md#load-and-prepare); here the file's own axes
//! are kept. The `vertex` element may have any properties as long as `x`, `y`, `z` are among them
//! (any scalar type); the `face` element's `vertex_indices` (or `vertex_index`) list may use any
//! count and index types; every other element and property, lists included, is read and skipped.
//! Declared counts are checked against the bytes left before anything is allocated.

use super::polygon::triangulate;
use super::text::{show, syntax};
use super::LoadError;
use crate::geom::P3;
use crate::mesh::Mesh;

mod reader;

use reader::{AsciiReader, BinReader, Scalar, ValueReader};

/// Body encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Ascii,
    BinaryLe,
    BinaryBe,
}

/// A property: a scalar or a list (count type, item type).
#[derive(Clone, Debug)]
enum Kind {
    Scalar(Scalar),
    List(Scalar, Scalar),
}

#[derive(Clone, Debug)]
struct Property {
    name: String,
    kind: Kind,
}

#[derive(Clone, Debug)]
struct Element {
    name: String,
    count: usize,
    props: Vec<Property>,
    /// 1-based header line declaring the element.
    line: usize,
}

impl Element {
    /// Least bytes one instance takes in a binary body (scalars, and list counts with no items).
    fn min_binary_bytes(&self) -> usize {
        self.props
            .iter()
            .map(|p| match p.kind {
                Kind::Scalar(t) | Kind::List(t, _) => t.size(),
            })
            .sum()
    }
}

/// Parsed header: format, elements, and where the body starts (byte offset, line number).
struct Header {
    format: Format,
    elements: Vec<Element>,
    body: usize,
    body_line: usize,
}

/// Parse PLY bytes.
pub(crate) fn parse(bytes: &[u8]) -> Result<Mesh, LoadError> {
    parse_full(bytes).map(|(m, _)| m)
}

/// Per-vertex colours of the `vertex` element (`red`, `green`, `blue`, optional `alpha`, or the
/// `diffuse_` spellings), RGBA in [0, 1]: integer types are scaled by their maximum, floats
/// taken as they are.
pub(crate) type VertexColors = Option<Vec<[f32; 4]>>;

/// Parse PLY bytes with the vertex colours.
pub(crate) fn parse_full(bytes: &[u8]) -> Result<(Mesh, VertexColors), LoadError> {
    let header = parse_header(bytes)?;
    let body = bytes.get(header.body..).unwrap_or(&[]);
    let mut reader: Box<dyn ValueReader + '_> = match header.format {
        Format::Ascii => Box::new(AsciiReader::new(body, header.body_line)),
        Format::BinaryLe => Box::new(BinReader::new(body, false)),
        Format::BinaryBe => Box::new(BinReader::new(body, true)),
    };
    let mut positions: Vec<P3> = Vec::new();
    let mut colors = None;
    let mut faces: Vec<u32> = Vec::new();
    let mut face_starts: Vec<(usize, Option<usize>)> = Vec::new();
    let mut saw_vertex = false;
    for el in &header.elements {
        reader.check_room(el.count, el.props.len(), el.min_binary_bytes())?;
        match el.name.as_str() {
            "vertex" if !saw_vertex => {
                saw_vertex = true;
                colors = read_vertices(el, reader.as_mut(), &mut positions)?;
            }
            "face" => read_faces(el, reader.as_mut(), &mut faces, &mut face_starts)?,
            _ => skip_element(el, reader.as_mut())?,
        }
    }
    if !saw_vertex {
        return Err(LoadError::Invalid("PLY file has no vertex element".into()));
    }
    let mut triangles = Vec::with_capacity(faces.len());
    let mut poly = Vec::new();
    let ends = face_starts.iter().skip(1).map(|s| s.0).chain([faces.len()]);
    for (face, (&(start, line), end)) in face_starts.iter().zip(ends).enumerate() {
        poly.clear();
        for &i in faces.get(start..end).unwrap_or(&[]) {
            if i as usize >= positions.len() {
                return Err(LoadError::BadIndex {
                    face,
                    index: i64::from(i),
                    count: positions.len(),
                    line,
                });
            }
            poly.push(i);
        }
        triangulate(&positions, &poly, &mut triangles);
    }
    Ok((
        Mesh {
            positions,
            triangles,
        },
        colors,
    ))
}

/// The property slots of a vertex colour (RGB required, alpha optional), if present.
fn color_slots(el: &Element) -> Option<[Option<(usize, Scalar)>; 4]> {
    let find = |names: [&str; 2]| {
        el.props.iter().enumerate().find_map(|(k, p)| match p.kind {
            Kind::Scalar(t) if names.contains(&p.name.as_str()) => Some((k, t)),
            _ => None,
        })
    };
    let slots = [
        find(["red", "diffuse_red"]),
        find(["green", "diffuse_green"]),
        find(["blue", "diffuse_blue"]),
        find(["alpha", "diffuse_alpha"]),
    ];
    slots[..3].iter().all(Option::is_some).then_some(slots)
}

/// A colour component in [0, 1].
fn unit_color(v: f64, t: Scalar) -> f32 {
    let max = match t {
        Scalar::U8 | Scalar::I8 => 255.0,
        Scalar::U16 | Scalar::I16 => 65535.0,
        Scalar::U32 | Scalar::I32 => 4_294_967_295.0,
        Scalar::F32 | Scalar::F64 => 1.0,
    };
    ((v / max) as f32).clamp(0.0, 1.0)
}

/// Read the `vertex` element, keeping `x`, `y`, `z` and the colour if there is one.
fn read_vertices(
    el: &Element,
    r: &mut dyn ValueReader,
    out: &mut Vec<P3>,
) -> Result<VertexColors, LoadError> {
    let color = color_slots(el);
    let mut colors = Vec::new();
    let slot = |axis: &str| {
        el.props
            .iter()
            .position(|p| p.name == axis && matches!(p.kind, Kind::Scalar(_)))
    };
    let (Some(ix), Some(iy), Some(iz)) = (slot("x"), slot("y"), slot("z")) else {
        return Err(syntax(
            el.line,
            "vertex element lacks scalar x, y, z properties",
        ));
    };
    out.reserve(el.count);
    for _ in 0..el.count {
        let mut p = [0.0; 3];
        let mut rgba = [1f32; 4];
        for (k, prop) in el.props.iter().enumerate() {
            match prop.kind {
                Kind::Scalar(t) => {
                    let v = r.scalar(t)?;
                    if let Some(slots) = &color {
                        if let Some(c) = slots.iter().position(|s| s.is_some_and(|s| s.0 == k)) {
                            rgba[c] = unit_color(v, t);
                        }
                    }
                    if k == ix {
                        p[0] = v;
                    } else if k == iy {
                        p[1] = v;
                    } else if k == iz {
                        p[2] = v;
                    }
                }
                Kind::List(c, t) => r.skip_list(c, t)?,
            }
        }
        out.push(P3::new(p[0], p[1], p[2]));
        if color.is_some() {
            colors.push(rgba);
        }
    }
    Ok(color.map(|_| colors))
}

/// Read the `face` element's index lists (flattened, with each face's start and line).
fn read_faces(
    el: &Element,
    r: &mut dyn ValueReader,
    faces: &mut Vec<u32>,
    starts: &mut Vec<(usize, Option<usize>)>,
) -> Result<(), LoadError> {
    let slot = el.props.iter().position(|p| {
        (p.name == "vertex_indices" || p.name == "vertex_index") && matches!(p.kind, Kind::List(..))
    });
    let Some(slot) = slot else {
        return Err(syntax(el.line, "face element lacks a vertex_indices list"));
    };
    for _ in 0..el.count {
        for (k, prop) in el.props.iter().enumerate() {
            match prop.kind {
                Kind::Scalar(t) => {
                    r.scalar(t)?;
                }
                Kind::List(c, t) if k == slot => {
                    starts.push((faces.len(), r.line()));
                    let n = r.list_len(c)?;
                    for _ in 0..n {
                        let v = r.scalar(t)?;
                        // Negative or fractional indices become out-of-range and are reported.
                        faces.push(if v >= 0.0 && v.fract() == 0.0 && v < f64::from(u32::MAX) {
                            v as u32
                        } else {
                            u32::MAX
                        });
                    }
                }
                Kind::List(c, t) => r.skip_list(c, t)?,
            }
        }
    }
    Ok(())
}

/// Read and discard every instance of an element.
fn skip_element(el: &Element, r: &mut dyn ValueReader) -> Result<(), LoadError> {
    for _ in 0..el.count {
        for prop in &el.props {
            match prop.kind {
                Kind::Scalar(t) => {
                    r.scalar(t)?;
                }
                Kind::List(c, t) => r.skip_list(c, t)?,
            }
        }
    }
    Ok(())
}

/// Parse the header up to and including `end_header`.
fn parse_header(bytes: &[u8]) -> Result<Header, LoadError> {
    let mut pos = 0;
    let mut line_no = 0;
    let mut format = None;
    let mut elements: Vec<Element> = Vec::new();
    loop {
        let rest = bytes.get(pos..).unwrap_or(&[]);
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            return Err(LoadError::Invalid(
                "PLY header has no end_header line".into(),
            ));
        };
        line_no += 1;
        pos += nl + 1;
        let line = rest.get(..nl).unwrap_or(&[]);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = String::from_utf8_lossy(line);
        let words: Vec<&str> = text.split_ascii_whitespace().collect();
        if line_no == 1 {
            if words != ["ply"] {
                return Err(syntax(1, "not a PLY file (first line must be 'ply')"));
            }
            continue;
        }
        match words.as_slice() {
            ["format", f, _version] => format = Some(parse_format(f, line_no)?),
            ["comment", ..] | ["obj_info", ..] | [] => {}
            ["element", name, count] => elements.push(parse_element(name, count, line_no)?),
            ["property", rest @ ..] => {
                let prop = parse_property(rest, line_no)?;
                elements
                    .last_mut()
                    .ok_or_else(|| syntax(line_no, "property before any element"))?
                    .props
                    .push(prop);
            }
            ["end_header"] => break,
            _ => {
                return Err(syntax(
                    line_no,
                    format!("unexpected header line '{}'", show(line)),
                ))
            }
        }
    }
    let format =
        format.ok_or_else(|| LoadError::Invalid("PLY header has no format line".into()))?;
    Ok(Header {
        format,
        elements,
        body: pos,
        body_line: line_no + 1,
    })
}

/// The `format` line's encoding.
fn parse_format(f: &str, line: usize) -> Result<Format, LoadError> {
    match f {
        "ascii" => Ok(Format::Ascii),
        "binary_little_endian" => Ok(Format::BinaryLe),
        "binary_big_endian" => Ok(Format::BinaryBe),
        _ => Err(syntax(line, format!("unknown PLY format '{f}'"))),
    }
}

/// `element NAME COUNT`, its properties to follow.
fn parse_element(name: &str, count: &str, line: usize) -> Result<Element, LoadError> {
    Ok(Element {
        name: name.to_owned(),
        count: count
            .parse()
            .map_err(|_| syntax(line, format!("bad element count '{count}'")))?,
        props: Vec::new(),
        line,
    })
}

/// `TYPE NAME` or `list COUNT_TYPE ITEM_TYPE NAME`.
fn parse_property(words: &[&str], line: usize) -> Result<Property, LoadError> {
    let ty =
        |w: &str| Scalar::parse(w).ok_or_else(|| syntax(line, format!("unknown PLY type '{w}'")));
    match words {
        ["list", c, t, name] => Ok(Property {
            name: (*name).to_owned(),
            kind: Kind::List(ty(c)?, ty(t)?),
        }),
        [t, name] => Ok(Property {
            name: (*name).to_owned(),
            kind: Kind::Scalar(ty(t)?),
        }),
        _ => Err(syntax(line, "malformed property line")),
    }
}

#[cfg(test)]
#[path = "ply_tests.rs"]
mod tests;
