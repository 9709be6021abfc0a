//! glTF buffer resolution and accessor reading, bounds-checked throughout.
//!
//! `gltf`'s own readers index slices directly and can panic on a malformed file (a zero-count
//! sparse accessor underflows, short value views `unwrap`), so accessors are read here: every
//! range is checked against the real buffer before anything is allocated, which also bounds
//! memory by the file's size.

use std::path::Path;

use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Source;
use gltf::Gltf;

use super::companion::{self, Companion};
use super::LoadError;

/// Accessors without a buffer view (all zeros, or sparse) may not claim more elements than this:
/// there is no data to bound them, and a forged count must not allocate absurdly.
const MAX_VIEWLESS_ELEMENTS: usize = 1 << 24;

/// The bytes of every buffer of a document, by buffer index.
pub(crate) struct Buffers(Vec<Vec<u8>>);

impl Buffers {
    /// Resolve every buffer: the GLB `BIN` chunk, `data:` base64 URIs, or files relative to
    /// `base_dir` ([`LoadError::MissingBuffer`] if absent, [`LoadError::ShortBuffer`] if shorter
    /// than the document says: still being copied, or from another export). External files are
    /// recorded in `seen`, found or not.
    pub(crate) fn resolve(
        gltf: &mut Gltf,
        base_dir: Option<&Path>,
        seen: &mut Vec<Companion>,
    ) -> Result<Self, LoadError> {
        let mut blob = gltf.blob.take();
        let mut out = Vec::new();
        for buffer in gltf.document.buffers() {
            let bytes = match buffer.source() {
                Source::Bin => blob
                    .take()
                    .ok_or_else(|| LoadError::Invalid("the GLB has no BIN chunk".into()))?,
                Source::Uri(uri) => {
                    let bytes = read_uri(uri, base_dir, seen)?;
                    let expected = buffer.length() as u64;
                    match seen.last() {
                        Some(c) if (bytes.len() as u64) < expected && !uri.starts_with("data:") => {
                            return Err(LoadError::ShortBuffer {
                                path: c.path.clone(),
                                len: bytes.len() as u64,
                                expected,
                            })
                        }
                        _ => bytes,
                    }
                }
            };
            out.push(bytes);
        }
        Ok(Self(out))
    }

    /// Number of buffers.
    pub(crate) fn count(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn get(&self, index: usize) -> Option<&[u8]> {
        self.0.get(index).map(Vec::as_slice)
    }
}

/// Bytes of a buffer URI: `data:…;base64,…` or a relative file path (percent-decoded), which is
/// recorded in `seen`.
pub(crate) fn read_uri(
    uri: &str,
    base_dir: Option<&Path>,
    seen: &mut Vec<Companion>,
) -> Result<Vec<u8>, LoadError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (meta, data) = rest
            .split_once(',')
            .ok_or_else(|| LoadError::Invalid("malformed data: URI (no comma)".into()))?;
        if !meta.ends_with(";base64") {
            return Err(LoadError::Invalid(
                "data: URI buffers must be base64".into(),
            ));
        }
        return base64_decode(data)
            .ok_or_else(|| LoadError::Invalid("data: URI is not valid base64".into()));
    }
    let rel = percent_decode(uri);
    let path = base_dir.unwrap_or_else(|| Path::new("")).join(rel);
    if base_dir.is_none() || !path.is_file() {
        companion::missing(&path, seen);
        return Err(LoadError::MissingBuffer(path));
    }
    Ok(companion::read(&path, seen)?)
}

/// Decode standard base64 (padding optional, ASCII whitespace ignored).
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            c if c.is_ascii_whitespace() => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `%XX` escapes decoded (URIs of external buffers may escape spaces).
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (b[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An accessor's elements as `f64`, `dims` values per element (row-major), with normalized
/// integer types mapped to [0, 1] / [−1, 1] as the glTF spec defines.
pub(crate) struct Elements {
    /// Values per element (3 for VEC3, 16 for MAT4, …).
    pub dims: usize,
    /// `count × dims` values.
    pub data: Vec<f64>,
}

impl Elements {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dims).unwrap_or(0)
    }
    /// Element `i` (empty slice if out of range).
    pub fn get(&self, i: usize) -> &[f64] {
        self.data
            .get(i * self.dims..(i + 1) * self.dims)
            .unwrap_or(&[])
    }
}

/// Size in bytes of one component.
fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Decode one little-endian component (`b` has at least `component_size(t)` bytes).
fn component(t: DataType, b: &[u8], normalized: bool) -> f64 {
    let le2 = || {
        [
            b.first().copied().unwrap_or(0),
            b.get(1).copied().unwrap_or(0),
        ]
    };
    let le4 = || [0, 1, 2, 3].map(|k| b.get(k).copied().unwrap_or(0));
    let byte = b.first().copied().unwrap_or(0);
    match (t, normalized) {
        (DataType::I8, false) => f64::from(byte as i8),
        (DataType::I8, true) => (f64::from(byte as i8) / 127.0).max(-1.0),
        (DataType::U8, false) => f64::from(byte),
        (DataType::U8, true) => f64::from(byte) / 255.0,
        (DataType::I16, false) => f64::from(i16::from_le_bytes(le2())),
        (DataType::I16, true) => (f64::from(i16::from_le_bytes(le2())) / 32767.0).max(-1.0),
        (DataType::U16, false) => f64::from(u16::from_le_bytes(le2())),
        (DataType::U16, true) => f64::from(u16::from_le_bytes(le2())) / 65535.0,
        (DataType::U32, _) => f64::from(u32::from_le_bytes(le4())),
        (DataType::F32, _) => f64::from(f32::from_le_bytes(le4())),
    }
}

/// `count` elements of `dims` components starting at `offset` with `stride` in `bytes`.
fn read_strided(
    bytes: &[u8],
    (offset, stride, count): (usize, usize, usize),
    (t, dims, normalized): (DataType, usize, bool),
) -> Result<Vec<f64>, LoadError> {
    let cs = component_size(t);
    let elem = cs * dims;
    let end = match count {
        0 => Some(offset),
        n => (n - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(offset))
            .and_then(|x| x.checked_add(elem)),
    };
    if end.is_none_or(|e| e > bytes.len()) {
        return Err(LoadError::Invalid(format!(
            "accessor of {count} elements runs past the end of its buffer view"
        )));
    }
    let mut out = Vec::with_capacity(count * dims);
    for i in 0..count {
        let base = offset + i * stride;
        for k in 0..dims {
            let at = base + k * cs;
            out.push(component(
                t,
                bytes.get(at..at + cs).unwrap_or(&[]),
                normalized,
            ));
        }
    }
    Ok(out)
}

/// Bytes of a buffer view (range-checked).
fn view_bytes<'a>(view: &gltf::buffer::View, buffers: &'a Buffers) -> Result<&'a [u8], LoadError> {
    let buf = buffers
        .get(view.buffer().index())
        .ok_or_else(|| LoadError::Invalid("buffer view refers to a missing buffer".into()))?;
    view.offset()
        .checked_add(view.length())
        .and_then(|end| buf.get(view.offset()..end))
        .ok_or_else(|| {
            LoadError::Invalid(format!(
                "buffer view {} lies outside its buffer ({} bytes)",
                view.index(),
                buf.len()
            ))
        })
}

/// Read every element of an accessor (sparse substitution applied).
pub(crate) fn read(acc: &gltf::Accessor, buffers: &Buffers) -> Result<Elements, LoadError> {
    let t = acc.data_type();
    let dims = acc.dimensions().multiplicity();
    let count = acc.count();
    let normalized = acc.normalized();
    let mut data = match acc.view() {
        Some(view) => {
            let bytes = view_bytes(&view, buffers)?;
            let stride = view.stride().unwrap_or(component_size(t) * dims);
            read_strided(bytes, (acc.offset(), stride, count), (t, dims, normalized))?
        }
        None if count <= MAX_VIEWLESS_ELEMENTS => vec![0.0; count * dims],
        None => {
            return Err(LoadError::Invalid(format!(
                "accessor {} claims {count} elements without data",
                acc.index()
            )))
        }
    };
    if let Some(sparse) = acc.sparse() {
        apply_sparse(&sparse, &mut data, (t, dims, normalized), buffers)?;
    }
    Ok(Elements { dims, data })
}

/// Substitute a sparse accessor's values into `data`.
fn apply_sparse(
    sparse: &gltf::accessor::sparse::Sparse,
    data: &mut [f64],
    (t, dims, normalized): (DataType, usize, bool),
    buffers: &Buffers,
) -> Result<(), LoadError> {
    use gltf::accessor::sparse::IndexType;
    let n = sparse.count();
    let idx = sparse.indices();
    let it = match idx.index_type() {
        IndexType::U8 => DataType::U8,
        IndexType::U16 => DataType::U16,
        IndexType::U32 => DataType::U32,
    };
    let ib = view_bytes(&idx.view(), buffers)?;
    let indices = read_strided(ib, (idx.offset(), component_size(it), n), (it, 1, false))?;
    let vals = sparse.values();
    let vb = view_bytes(&vals.view(), buffers)?;
    let elem = component_size(t) * dims;
    let values = read_strided(vb, (vals.offset(), elem, n), (t, dims, normalized))?;
    for (k, &i) in indices.iter().enumerate() {
        let i = i as usize;
        let dst = data.get_mut(i * dims..(i + 1) * dims).ok_or_else(|| {
            LoadError::Invalid(format!("sparse accessor index {i} is out of range"))
        })?;
        let src = values
            .get(k * dims..(k + 1) * dims)
            .ok_or_else(|| LoadError::Invalid("sparse accessor has too few values".into()))?;
        dst.copy_from_slice(src);
    }
    Ok(())
}

/// True if the accessor's shape is `dims` values per element (e.g. POSITION must be VEC3).
pub(crate) fn has_dims(acc: &gltf::Accessor, want: Dimensions) -> bool {
    acc.dimensions() == want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip_known_values() {
        assert_eq!(base64_decode("TWFu").unwrap(), b"Man");
        assert_eq!(base64_decode("TWE=").unwrap(), b"Ma");
        assert_eq!(base64_decode("TQ==").unwrap(), b"M");
        assert_eq!(base64_decode("AAECAw\n==").unwrap(), vec![0, 1, 2, 3]);
        assert!(base64_decode("T!Q=").is_none());
    }

    #[test]
    fn percent_escapes() {
        assert_eq!(percent_decode("my%20file.bin"), "my file.bin");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
