//! Byte-level helpers for the text formats (OBJ, OFF, ASCII PLY).
//!
//! Files are read as bytes, not `str`: exporters write Latin-1 material and group names, and a
//! stray non-UTF-8 byte in a comment must not reject an otherwise valid mesh. Only the tokens that
//! are parsed as numbers need to be ASCII.

use std::borrow::Cow;

use super::number::{f64_of, i64_of};
use super::LoadError;

/// Logical lines of a text file: `(1-based number of the first physical line, content)`, with
/// `\r\n` / `\r` endings stripped and lines ending in `\` joined to the next (OBJ continuation).
/// An iterator, so a big file's lines are never listed all at once.
pub(crate) fn logical_lines(bytes: &[u8], continuation: bool) -> LogicalLines<'_> {
    LogicalLines {
        rest: Some(bytes),
        number: 0,
        continuation,
    }
}

/// The iterator of [`logical_lines`].
pub(crate) struct LogicalLines<'a> {
    /// The bytes after the last physical line read (`None` once the last one was read).
    rest: Option<&'a [u8]>,
    /// 1-based number of the last physical line read.
    number: usize,
    continuation: bool,
}

impl<'a> LogicalLines<'a> {
    /// The next physical line (every `\n`-separated piece, a last empty one included) and
    /// whether it continues on the next, its `\r` and `\` stripped.
    fn physical(&mut self) -> Option<(&'a [u8], bool)> {
        let rest = self.rest?;
        let raw = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                &rest[..i]
            }
            None => {
                self.rest = None;
                rest
            }
        };
        self.number += 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        match line.split_last() {
            Some((b'\\', body)) if self.continuation => Some((body, true)),
            _ => Some((line, false)),
        }
    }
}

impl<'a> Iterator for LogicalLines<'a> {
    type Item = (usize, Cow<'a, [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        let (body, continued) = self.physical()?;
        let first = self.number;
        if !continued {
            return Some((first, Cow::Borrowed(body)));
        }
        let mut acc = body.to_vec();
        while let Some((body, continued)) = self.physical() {
            acc.push(b' ');
            acc.extend_from_slice(body);
            if !continued {
                break;
            }
        }
        Some((first, Cow::Owned(acc)))
    }
}

/// Whitespace-separated tokens of a line.
pub(crate) fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
}

/// A token as text for error messages (lossy, shortened).
pub(crate) fn show(token: &[u8]) -> String {
    let s = String::from_utf8_lossy(token);
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

/// Parse a token as `f64`, or a syntax error naming `what` at `line`.
pub(crate) fn parse_f64(token: &[u8], line: usize, what: &str) -> Result<f64, LoadError> {
    f64_of(token).ok_or_else(|| syntax(line, format!("{what}: '{}' is not a number", show(token))))
}

/// Parse a token as `i64`, or a syntax error naming `what` at `line`.
pub(crate) fn parse_i64(token: &[u8], line: usize, what: &str) -> Result<i64, LoadError> {
    i64_of(token)
        .ok_or_else(|| syntax(line, format!("{what}: '{}' is not an integer", show(token))))
}

/// A [`LoadError::Syntax`].
pub(crate) fn syntax(line: usize, message: impl Into<String>) -> LoadError {
    LoadError::Syntax {
        line,
        message: message.into(),
    }
}

/// Bytes a text format never holds: a NUL. Checked in the first [`SNIFF_BYTES`] only, so a huge
/// file costs nothing extra.
const SNIFF_BYTES: usize = 64 * 1024;

/// Why `bytes` cannot be a `format` text file at all (empty, or binary data), before parsing: a
/// renamed image or archive would otherwise parse as text with no statements and read as an
/// empty mesh.
pub(crate) fn not_text(bytes: &[u8], format: &str) -> Option<LoadError> {
    if bytes.is_empty() {
        return Some(LoadError::Invalid("the file is empty (0 bytes)".into()));
    }
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let nul = head.iter().position(|&b| b == 0)?;
    Some(LoadError::Invalid(format!(
        "binary data, not {format} text (a NUL byte at offset {nul} of {})",
        size_text(bytes.len())
    )))
}

/// A file size in plain words (`812 bytes`, `12 KB`, `3.4 MB`).
pub(crate) fn size_text(len: usize) -> String {
    const KB: usize = 1024;
    match len {
        n if n < KB => format!("{n} bytes"),
        n if n < KB * KB => format!("{} KB", n.div_ceil(KB)),
        n => format!("{:.1} MB", n as f64 / (KB * KB) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The list-building reader `logical_lines` replaced, kept as the reference.
    fn listed_lines(bytes: &[u8], continuation: bool) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        let mut pending: Option<(usize, Vec<u8>)> = None;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = raw.strip_suffix(b"\r").unwrap_or(raw);
            let continued = continuation && line.last() == Some(&b'\\');
            let body = if continued {
                &line[..line.len() - 1]
            } else {
                line
            };
            match (pending.take(), continued) {
                (Some((n, mut acc)), c) => {
                    acc.push(b' ');
                    acc.extend_from_slice(body);
                    if c {
                        pending = Some((n, acc));
                    } else {
                        out.push((n, acc));
                    }
                }
                (None, true) => pending = Some((i + 1, body.to_vec())),
                (None, false) => out.push((i + 1, body.to_vec())),
            }
        }
        out.extend(pending);
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn lines_are_those_of_the_list_reader(
            bytes in prop::collection::vec(prop::sample::select(b"a1 \n\r\\#".to_vec()), 0..40),
            continuation in any::<bool>(),
        ) {
            let got: Vec<(usize, Vec<u8>)> = logical_lines(&bytes, continuation)
                .map(|(n, l)| (n, l.into_owned()))
                .collect();
            prop_assert_eq!(got, listed_lines(&bytes, continuation));
        }
    }

    #[test]
    fn crlf_and_continuation() {
        let lines: Vec<_> = logical_lines(b"v 1 2 \\\r\n 3\r\nf 1 2 3\n", true).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].0, 1);
        assert_eq!(tokens(&lines[0].1).count(), 4);
        assert_eq!(lines[1].0, 3);
        assert_eq!(&*lines[1].1, b"f 1 2 3");
    }
}
