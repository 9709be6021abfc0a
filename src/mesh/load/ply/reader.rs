//! Value readers for PLY bodies: ASCII tokens or binary scalars, both bounds-checked.

use super::super::text::{show, syntax};
use super::super::LoadError;

/// PLY scalar types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    /// Both the old (`uchar`) and the sized (`uint8`) spellings.
    pub(crate) fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "char" | "int8" => Self::I8,
            "uchar" | "uint8" => Self::U8,
            "short" | "int16" => Self::I16,
            "ushort" | "uint16" => Self::U16,
            "int" | "int32" => Self::I32,
            "uint" | "uint32" => Self::U32,
            "float" | "float32" => Self::F32,
            "double" | "float64" => Self::F64,
            _ => return None,
        })
    }

    /// Size in bytes in binary files.
    pub(crate) fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }
}

/// Reads the values of a PLY body in order.
pub(crate) trait ValueReader {
    /// The next scalar of type `t`.
    fn scalar(&mut self, t: Scalar) -> Result<f64, LoadError>;
    /// Bytes not yet consumed.
    fn remaining(&self) -> usize;
    /// Least bytes one value occupies (binary: 1; ASCII: a digit and a separator).
    fn min_value_bytes(&self) -> usize;
    /// Current line (ASCII only).
    fn line(&self) -> Option<usize>;

    /// A list's length, read as a count of type `c` and checked against the bytes left.
    fn list_len(&mut self, c: Scalar) -> Result<usize, LoadError> {
        let n = self.scalar(c)?;
        if !(n >= 0.0 && n.fract() == 0.0) {
            return Err(self.error(format!("bad list length {n}")));
        }
        let n = n as usize;
        if n.saturating_mul(self.min_value_bytes()) > self.remaining() + 1 {
            return Err(self.error(format!("list of {n} values runs past the end of the file")));
        }
        Ok(n)
    }

    /// Read and discard a list.
    fn skip_list(&mut self, c: Scalar, t: Scalar) -> Result<(), LoadError> {
        for _ in 0..self.list_len(c)? {
            self.scalar(t)?;
        }
        Ok(())
    }

    /// Fail cleanly if `count` instances cannot fit in what is left, given each needs at least
    /// `values` values and (binary) `binary_bytes` bytes: a forged count must neither allocate
    /// absurdly nor loop for ages.
    fn check_room(
        &self,
        count: usize,
        values: usize,
        binary_bytes: usize,
    ) -> Result<(), LoadError> {
        let per = if self.line().is_some() {
            values.saturating_mul(self.min_value_bytes())
        } else {
            binary_bytes
        };
        let need = count.saturating_mul(per.max(1));
        if need > self.remaining() + 1 {
            return Err(self.error(format!(
                "element claims {count} entries, more than the {} bytes left can hold",
                self.remaining()
            )));
        }
        Ok(())
    }

    /// An error at the current position.
    fn error(&self, message: String) -> LoadError {
        match self.line() {
            Some(l) => syntax(l, message),
            None => LoadError::Invalid(message),
        }
    }
}

/// Whitespace-separated ASCII values.
pub(crate) struct AsciiReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> AsciiReader<'a> {
    /// A reader over `bytes`, whose first line is file line `line`.
    pub(crate) fn new(bytes: &'a [u8], line: usize) -> Self {
        let mut r = Self {
            bytes,
            pos: 0,
            line,
        };
        r.skip_space();
        r
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !b.is_ascii_whitespace() {
                break;
            }
            self.line += usize::from(b == b'\n');
            self.pos += 1;
        }
    }

    /// The next token and its line; afterwards `self.line` is the line of the token after it.
    fn token(&mut self) -> (Option<&'a [u8]>, usize) {
        self.skip_space();
        let (start, line) = (self.pos, self.line);
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
        let tok = self.bytes.get(start..self.pos).filter(|t| !t.is_empty());
        self.skip_space();
        (tok, line)
    }
}

impl ValueReader for AsciiReader<'_> {
    fn scalar(&mut self, _t: Scalar) -> Result<f64, LoadError> {
        let (tok, line) = self.token();
        let tok =
            tok.ok_or_else(|| syntax(line, "file ends before all declared elements are read"))?;
        std::str::from_utf8(tok)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| syntax(line, format!("'{}' is not a number", show(tok))))
    }
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }
    fn min_value_bytes(&self) -> usize {
        2
    }
    fn line(&self) -> Option<usize> {
        Some(self.line)
    }
}

/// Binary values, little or big endian.
pub(crate) struct BinReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> BinReader<'a> {
    /// A reader over `bytes`.
    pub(crate) fn new(bytes: &'a [u8], big_endian: bool) -> Self {
        Self {
            bytes,
            pos: 0,
            big_endian,
        }
    }
}

impl ValueReader for BinReader<'_> {
    fn scalar(&mut self, t: Scalar) -> Result<f64, LoadError> {
        let n = t.size();
        let raw = self.bytes.get(self.pos..self.pos + n).ok_or_else(|| {
            LoadError::Invalid(format!("binary PLY body ends early (byte {})", self.pos))
        })?;
        self.pos += n;
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(raw);
        if self.big_endian {
            b[..n].reverse();
        }
        Ok(match t {
            Scalar::I8 => f64::from(b[0] as i8),
            Scalar::U8 => f64::from(b[0]),
            Scalar::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            Scalar::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
            Scalar::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            Scalar::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            Scalar::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            Scalar::F64 => f64::from_le_bytes(b),
        })
    }
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }
    fn min_value_bytes(&self) -> usize {
        1
    }
    fn line(&self) -> Option<usize> {
        None
    }
}
