//! Bounds-checked primitives of the CQL wire format. Every read names its field, so an
//! error tells which field of the peer's bytes was bad and where.

use crate::error::ProtocolError;

/// A cursor over borrowed bytes. Reads never panic and never allocate.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Offset of `buf[0]` in the enclosing message, so errors report absolute offsets.
    base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0, base: 0 }
    }
    pub fn with_base(buf: &'a [u8], base: usize) -> Self {
        Self { buf, pos: 0, base }
    }
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    pub fn error(&self, field: &'static str, reason: impl Into<String>) -> ProtocolError {
        ProtocolError::remote(field, self.offset(), reason)
    }

    /// Inlined, with the error built out of line: every fixed-size read of every frame comes
    /// through here, and the call plus the large `Result` it returned was ~37 instructions
    /// per read, a fifth of a request's receive path (issue #17).
    #[inline]
    pub fn bytes(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], ProtocolError> {
        if n > self.remaining() {
            return Err(self.short(n, field));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[cold]
    #[inline(never)]
    fn short(&self, n: usize, field: &'static str) -> ProtocolError {
        self.error(field, format!("needs {n} bytes, {} left", self.remaining()))
    }

    /// Splits off the next `n` bytes as their own reader, keeping absolute offsets.
    pub fn sub(&mut self, n: usize, field: &'static str) -> Result<Reader<'a>, ProtocolError> {
        let base = self.offset();
        let b = self.bytes(n, field)?;
        Ok(Reader::with_base(b, base))
    }

    #[inline]
    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], ProtocolError> {
        let b = self.bytes(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    #[inline]
    pub fn u8(&mut self, field: &'static str) -> Result<u8, ProtocolError> {
        Ok(self.array::<1>(field)?[0])
    }
    #[inline]
    pub fn u16(&mut self, field: &'static str) -> Result<u16, ProtocolError> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }
    #[inline]
    pub fn i16(&mut self, field: &'static str) -> Result<i16, ProtocolError> {
        Ok(i16::from_be_bytes(self.array(field)?))
    }
    #[inline]
    pub fn i32(&mut self, field: &'static str) -> Result<i32, ProtocolError> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }
    #[inline]
    pub fn u32(&mut self, field: &'static str) -> Result<u32, ProtocolError> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }
    #[inline]
    pub fn i64(&mut self, field: &'static str) -> Result<i64, ProtocolError> {
        Ok(i64::from_be_bytes(self.array(field)?))
    }

    /// `[string]`: a u16 length then UTF-8.
    pub fn string(&mut self, field: &'static str) -> Result<&'a str, ProtocolError> {
        let n = self.u16(field)? as usize;
        let at = self.offset();
        let b = self.bytes(n, field)?;
        std::str::from_utf8(b).map_err(|_| ProtocolError::remote(field, at, "invalid UTF-8"))
    }
    /// `[long string]`: an i32 length then UTF-8.
    pub fn long_string(&mut self, field: &'static str) -> Result<&'a str, ProtocolError> {
        let n = self.i32(field)?;
        if n < 0 {
            return Err(self.error(field, format!("negative length {n}")));
        }
        let at = self.offset();
        let b = self.bytes(n as usize, field)?;
        std::str::from_utf8(b).map_err(|_| ProtocolError::remote(field, at, "invalid UTF-8"))
    }
    /// `[short bytes]`.
    pub fn short_bytes(&mut self, field: &'static str) -> Result<&'a [u8], ProtocolError> {
        let n = self.u16(field)? as usize;
        self.bytes(n, field)
    }
    /// `[bytes]`: `None` for a negative length (null). Inlined: a caller that drops the error
    /// (a routing token) then builds none.
    #[inline]
    pub fn bytes_opt(&mut self, field: &'static str) -> Result<Option<&'a [u8]>, ProtocolError> {
        let n = self.i32(field)?;
        if n < 0 {
            return Ok(None);
        }
        self.bytes(n as usize, field).map(Some)
    }
    /// `[string list]`, visited without allocating.
    pub fn string_list(&mut self, field: &'static str) -> Result<StringList<'a>, ProtocolError> {
        let n = self.u16(field)?;
        let start = *self;
        for _ in 0..n {
            self.string(field)?;
        }
        Ok(StringList { reader: start, left: n })
    }
    /// `[inet]`: a 1-byte length, 4 or 16 address bytes, then an i32 port.
    pub fn inet(&mut self, field: &'static str) -> Result<(&'a [u8], i32), ProtocolError> {
        let n = self.u8(field)? as usize;
        if n != 4 && n != 16 {
            return Err(self.error(field, format!("address length {n}, expected 4 or 16")));
        }
        let addr = self.bytes(n, field)?;
        let port = self.i32(field)?;
        Ok((addr, port))
    }
}

/// A validated `[string list]`, iterated lazily.
#[derive(Clone, Copy, Debug)]
pub struct StringList<'a> {
    reader: Reader<'a>,
    left: u16,
}

impl<'a> Iterator for StringList<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.reader.string("string list").ok()
    }
}

/// Appends wire primitives to a caller-owned buffer, so buffers are reused.
pub struct Writer<'a> {
    pub buf: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut Vec<u8>) -> Self {
        Self { buf }
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    pub fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// `[string]`; the caller guarantees `s.len() <= u16::MAX`.
    pub fn string(&mut self, s: &str) {
        self.u16(s.len() as u16);
        self.raw(s.as_bytes());
    }
    pub fn long_string(&mut self, s: &str) {
        self.i32(s.len() as i32);
        self.raw(s.as_bytes());
    }
    pub fn short_bytes(&mut self, b: &[u8]) {
        self.u16(b.len() as u16);
        self.raw(b);
    }
    pub fn bytes(&mut self, b: Option<&[u8]>) {
        match b {
            Some(b) => {
                self.i32(b.len() as i32);
                self.raw(b);
            }
            None => self.i32(-1),
        }
    }
    pub fn string_map(&mut self, pairs: &[(&str, &str)]) {
        self.u16(pairs.len() as u16);
        for (k, v) in pairs {
            self.string(k);
            self.string(v);
        }
    }
}
