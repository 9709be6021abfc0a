//! The text layout of `rig.json`: pretty JSON for the record, but an array that is an element of
//! another array is written on one line. So the skin table is one line per vertex
//! (`[[3,0.75],[4,0.25]]`) instead of one line per number: the same JSON value as before (old
//! files and other JSON readers see no difference), about a fifth of the bytes, still readable
//! line by line. Numbers are serde_json's: the shortest decimal that reads back to the same
//! `f64` (ryu), and the crate reads JSON with `float_roundtrip`, so weights round-trip exactly.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// `value` as rig.json text (see the module docs).
pub fn to_vec<T: Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(1 << 16);
    to_writer(&mut out, value)?;
    Ok(out)
}

/// Stream `value` as rig.json text into `w` (no whole-file buffer).
pub fn to_writer<W: Write, T: Serialize>(w: W, value: &T) -> serde_json::Result<()> {
    let mut chunks = Chunks {
        out: w,
        buf: Vec::with_capacity(CHUNK),
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut chunks, Layout::default());
    value.serialize(&mut ser)?;
    chunks.flush().map_err(serde_json::Error::io)
}

/// Bytes gathered before they are passed on to the writer.
const CHUNK: usize = 1 << 16;

/// The serializer writes a few bytes at a time (`[`, `3`, `,`, a number, …), about ten calls
/// per skin entry; through `&mut dyn Write` (what the export hands over) each was an indirect
/// call into `BufWriter`. Gathering them here, in a type the serializer is compiled for, keeps
/// those writes inline; the writer sees the same bytes in larger pieces.
struct Chunks<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> Write for Chunks<W> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.buf.len() + bytes.len() > CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// Pretty at the top, compact from the first array nested directly in an array.
#[derive(Default)]
struct Layout {
    pretty: PrettyFormatter<'static>,
    compact: CompactFormatter,
    /// Open containers, innermost last: `true` for an array.
    open: Vec<bool>,
    /// Depth (length of `open`) of the outermost compact container, if inside one.
    compact_from: Option<usize>,
}

impl Layout {
    /// The container being written is compact.
    fn inner_compact(&self) -> bool {
        self.compact_from.is_some()
    }

    /// Enter a container; returns whether it is written compactly.
    fn enter(&mut self, array: bool) -> bool {
        if self.compact_from.is_none() && array && self.open.last() == Some(&true) {
            self.compact_from = Some(self.open.len() + 1);
        }
        self.open.push(array);
        self.inner_compact()
    }

    /// Leave a container; returns whether it was written compactly.
    fn leave(&mut self) -> bool {
        let was = self.inner_compact();
        if self.compact_from == Some(self.open.len()) {
            self.compact_from = None;
        }
        self.open.pop();
        was
    }
}

/// Route each structural call to the compact or the pretty formatter.
macro_rules! route {
    ($self:ident, $method:ident ( $($arg:expr),* )) => {
        if $self.inner_compact() {
            $self.compact.$method($($arg),*)
        } else {
            $self.pretty.$method($($arg),*)
        }
    };
}

impl Formatter for Layout {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        if self.enter(true) {
            self.compact.begin_array(w)
        } else {
            self.pretty.begin_array(w)
        }
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        if self.leave() {
            self.compact.end_array(w)
        } else {
            self.pretty.end_array(w)
        }
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        route!(self, begin_array_value(w, first))
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        route!(self, end_array_value(w))
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        if self.enter(false) {
            self.compact.begin_object(w)
        } else {
            self.pretty.begin_object(w)
        }
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        if self.leave() {
            self.compact.end_object(w)
        } else {
            self.pretty.end_object(w)
        }
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        route!(self, begin_object_key(w, first))
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        route!(self, end_object_key(w))
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        route!(self, begin_object_value(w))
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        route!(self, end_object_value(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_arrays_are_one_line_and_the_value_is_unchanged() {
        let value = serde_json::json!({
            "joints": [{"name": "Hips", "position": [0.5, 1.0, -2.25]}],
            "skin": [[[3, 0.1], [4, 0.9]], [[0, 1.0]]],
            "bbox": [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]],
        });
        let text = String::from_utf8(to_vec(&value).unwrap()).unwrap();
        assert!(
            text.contains("\n    [[3,0.1],[4,0.9]],\n    [[0,1.0]]\n"),
            "{text}"
        );
        assert!(text.contains("\n    [0.0,0.0,0.0],\n"), "{text}");
        // A coordinate triple inside an object stays pretty (one number per line), as before.
        assert!(text.contains("\"position\": [\n"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn weights_round_trip_bit_exactly() {
        // Awkward doubles: shortest forms of 17 digits, tiny and near-one values.
        let mut x = 0.123_456_789_f64;
        let skin: Vec<Vec<(u32, f64)>> = (0..500u32)
            .map(|i| {
                x = (x * 3.987_654_321 + 0.1).fract();
                vec![(i % 7, x), (i % 5, 1.0 - x), (i % 3, x * 1e-12)]
            })
            .collect();
        let text = to_vec(&skin).unwrap();
        let back: Vec<Vec<(u32, f64)>> = serde_json::from_slice(&text).unwrap();
        for (a, b) in skin.iter().flatten().zip(back.iter().flatten()) {
            assert_eq!(a.0, b.0);
            assert_eq!(a.1.to_bits(), b.1.to_bits());
        }
    }

    #[test]
    fn old_pretty_and_new_rig_files_load_to_the_same_rig() {
        use crate::rig::{Rig, RigJoint};
        let rig = Rig {
            mesh: "hero.obj".into(),
            joints: vec![RigJoint {
                name: "Hips".into(),
                parent: None,
                position: [0.1, 0.2, 0.3],
                end: false,
            }],
            vertex_count: 2,
            skin: Some(vec![
                vec![(0, 0.7000000000000001), (1, 0.3)],
                vec![(0, 1.0)],
            ]),
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.rig.json");
        let new = dir.path().join("new.rig.json");
        std::fs::write(&old, serde_json::to_string_pretty(&rig).unwrap()).unwrap();
        std::fs::write(&new, rig.to_json_bytes()).unwrap();
        assert!(std::fs::metadata(&new).unwrap().len() < std::fs::metadata(&old).unwrap().len());
        for path in [&old, &new] {
            assert_eq!(Rig::load(path).unwrap(), rig, "{}", path.display());
            let read = crate::rig::read::read(path).unwrap();
            assert_eq!(read.skin, rig.skin, "{}", path.display());
        }
    }
}
