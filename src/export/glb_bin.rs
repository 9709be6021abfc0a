//! The binary side shared by every GLB we write ([`super::glb`], [`super::glb_source`],
//! [`super::anim`]): buffer views and accessors appended 4-byte aligned, the `JOINTS_0` /
//! `WEIGHTS_0` bytes of weight rows, and the GLB container (glTF 2.0 "Binary glTF Layout").
//! One copy of each, so the three writers cannot drift apart in layout.

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::glb::{top_influences, GlbError};

/// Where a new buffer view goes: its buffer and its target (none for animation or matrices).
#[derive(Clone, Copy)]
pub(crate) struct View {
    /// The buffer `bin` belongs to.
    pub buffer: json::Index<json::Buffer>,
    /// `ARRAY_BUFFER` / `ELEMENT_ARRAY_BUFFER`, or none.
    pub target: Option<json::buffer::Target>,
}

/// Append `bytes` to `bin` (4-byte aligned) as a buffer view and one accessor over it; the
/// one accessor writer of every GLB we build or extend.
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_accessor(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    view: View,
    bytes: &[u8],
    count: usize,
    component: json::accessor::ComponentType,
    type_: json::accessor::Type,
    bounds: Option<(Vec<f32>, Vec<f32>)>,
) -> json::Index<json::Accessor> {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend_from_slice(bytes);
    let view = root.push(json::buffer::View {
        buffer: view.buffer,
        byte_length: USize64::from(bytes.len()),
        byte_offset: Some(USize64::from(offset)),
        byte_stride: None,
        extensions: None,
        extras: Default::default(),
        name: None,
        target: view.target.map(Valid),
    });
    let (min, max) = match bounds {
        Some((lo, hi)) => (Some(json::Value::from(lo)), Some(json::Value::from(hi))),
        None => (None, None),
    };
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    })
}

/// The GLB container around serialized JSON and the binary buffer (both padded here).
pub(crate) fn container(mut js: Vec<u8>, mut bin: Vec<u8>) -> Result<Vec<u8>, GlbError> {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    while !js.len().is_multiple_of(4) {
        js.push(b' ');
    }
    let total = 12 + 8 + js.len() + 8 + bin.len();
    let total32 = u32::try_from(total).map_err(|_| GlbError::TooLarge)?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&(js.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&js);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    Ok(out)
}

/// Little-endian bytes of `v`, as every float accessor stores them.
pub(crate) fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// The `JOINTS_0` (u16 × 4) and `WEIGHTS_0` (f32 × 4) bytes of per-vertex weight rows, each row
/// reduced to its [`top_influences`]: the one place both GLB writers pack influences.
pub(crate) fn influence_bytes<'r>(
    rows: impl ExactSizeIterator<Item = &'r [(u32, f64)]>,
) -> (Vec<u8>, Vec<u8>) {
    let n = rows.len();
    let (mut jb, mut wb) = (Vec::with_capacity(n * 8), Vec::with_capacity(n * 16));
    for row in rows {
        let (j, w) = top_influences(row);
        jb.extend(j.iter().flat_map(|x| x.to_le_bytes()));
        wb.extend(f32_bytes(w));
    }
    (jb, wb)
}
