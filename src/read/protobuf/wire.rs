//! Zero-copy protobuf wire scanner: iterates the fields of one message
//! without allocating, borrowing length-delimited payloads from the input.
//! The hot path (ftrace bundles, FrameTimeline) is decoded with it; unknown
//! fields are skipped by wire type, so newer Perfetto versions still read.

/// A malformed message: the scanner stops there and the caller decides what
/// was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// Varint longer than 10 bytes or running off the end.
    BadVarint,
    /// A length or fixed-size field running past the end of the message.
    Truncated,
    /// Wire types 3/4 (groups) or 6/7 do not occur in Perfetto traces.
    BadWireType(u8),
    /// Field number 0.
    BadFieldNumber,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::BadVarint => write!(f, "malformed varint"),
            WireError::Truncated => write!(f, "field runs past the end of its message"),
            WireError::BadWireType(t) => write!(f, "unsupported wire type {t}"),
            WireError::BadFieldNumber => write!(f, "field number 0"),
        }
    }
}

/// One field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

impl<'a> Value<'a> {
    /// The integer of a varint or fixed field (0 for bytes, which a
    /// well-formed trace never puts where an integer belongs).
    #[inline]
    pub fn as_u64(self) -> u64 {
        match self {
            Value::Varint(v) | Value::Fixed64(v) => v,
            Value::Fixed32(v) => v as u64,
            Value::Bytes(_) => 0,
        }
    }
    #[inline]
    pub fn as_i64(self) -> i64 {
        self.as_u64() as i64
    }
    /// int32 fields are sign-extended to 64 bits on the wire.
    #[inline]
    pub fn as_i32(self) -> i32 {
        self.as_u64() as i32
    }
    #[inline]
    pub fn as_bool(self) -> bool {
        self.as_u64() != 0
    }
    #[inline]
    pub fn bytes(self) -> &'a [u8] {
        match self {
            Value::Bytes(b) => b,
            _ => &[],
        }
    }
}

/// Reads a varint at `*pos`, advancing it.
#[inline(always)]
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Result<u64, WireError> {
    let mut p = *pos;
    // Fast path: one byte (tags and small values).
    if let Some(&b) = buf.get(p) {
        if b < 0x80 {
            *pos = p + 1;
            return Ok(b as u64);
        }
    }
    let mut result: u64 = 0;
    let mut shift = 0u32;
    loop {
        let Some(&b) = buf.get(p) else { return Err(WireError::BadVarint) };
        p += 1;
        if shift == 63 && b > 1 {
            return Err(WireError::BadVarint);
        }
        result |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            *pos = p;
            return Ok(result);
        }
        shift += 7;
        if shift > 63 {
            return Err(WireError::BadVarint);
        }
    }
}

/// Iterator over the fields of one message.
#[derive(Clone)]
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    #[inline]
    pub fn new(buf: &'a [u8]) -> Self {
        Fields { buf, pos: 0 }
    }
    #[inline(always)]
    fn next_field(&mut self) -> Result<(u32, Value<'a>), WireError> {
        let tag = read_varint(self.buf, &mut self.pos)?;
        let field = (tag >> 3) as u32;
        if field == 0 {
            return Err(WireError::BadFieldNumber);
        }
        let value = match (tag & 7) as u8 {
            0 => Value::Varint(read_varint(self.buf, &mut self.pos)?),
            1 => {
                let end = self.pos.checked_add(8).filter(|&e| e <= self.buf.len()).ok_or(WireError::Truncated)?;
                let v = u64::from_le_bytes(self.buf[self.pos..end].try_into().expect("8 bytes"));
                self.pos = end;
                Value::Fixed64(v)
            }
            2 => {
                let len = read_varint(self.buf, &mut self.pos)?;
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| self.pos.checked_add(l))
                    .filter(|&e| e <= self.buf.len())
                    .ok_or(WireError::Truncated)?;
                let v = &self.buf[self.pos..end];
                self.pos = end;
                Value::Bytes(v)
            }
            5 => {
                let end = self.pos.checked_add(4).filter(|&e| e <= self.buf.len()).ok_or(WireError::Truncated)?;
                let v = u32::from_le_bytes(self.buf[self.pos..end].try_into().expect("4 bytes"));
                self.pos = end;
                Value::Fixed32(v)
            }
            t => return Err(WireError::BadWireType(t)),
        };
        Ok((field, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), WireError>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let r = self.next_field();
        if r.is_err() {
            // Stop after the first error: the rest of the message is unreadable.
            self.pos = self.buf.len();
        }
        Some(r)
    }
}

/// Reads a message whose layout is known in advance (the fields a given
/// writer emits, in its order): each step checks the next tag byte and reads
/// one value. Any surprise gives `None` and the caller falls back to
/// [`Fields`], so this is only a shortcut past the per-field dispatch for the
/// millions of alike events of a busy trace, never a parser with semantics of
/// its own.
pub struct Expect<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Expect<'a> {
    #[inline(always)]
    pub fn new(buf: &'a [u8]) -> Self {
        Expect { buf, pos: 0 }
    }
    /// The next tag is the one-byte tag of `field` with `wire_type`.
    #[inline(always)]
    pub fn tag(&mut self, field: u8, wire_type: u8) -> Option<()> {
        debug_assert!((1..16).contains(&field) && wire_type < 8);
        (*self.buf.get(self.pos)? == field << 3 | wire_type).then(|| self.pos += 1)
    }
    /// The next tag is length-delimited; its field number.
    #[inline(always)]
    pub fn bytes_tag(&mut self) -> Option<u32> {
        let mut p = self.pos;
        let t = read_varint(self.buf, &mut p).ok()?;
        let field = u32::try_from(t >> 3).ok().filter(|&f| f != 0 && t & 7 == 2)?;
        self.pos = p;
        Some(field)
    }
    /// The next field is a varint with a one-byte tag and a field number
    /// above `field`; its value.
    #[inline(always)]
    pub fn varint_field_after(&mut self, field: u8) -> Option<u64> {
        let t = *self.buf.get(self.pos)?;
        if t >= 0x80 || t & 7 != 0 || t >> 3 <= field {
            return None;
        }
        self.pos += 1;
        self.varint()
    }
    #[inline(always)]
    pub fn varint(&mut self) -> Option<u64> {
        read_varint(self.buf, &mut self.pos).ok()
    }
    #[inline(always)]
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.varint()?).ok()?;
        let end = self.pos.checked_add(len).filter(|&e| e <= self.buf.len())?;
        let v = &self.buf[self.pos..end];
        self.pos = end;
        Some(v)
    }
    /// The whole message was read.
    #[inline(always)]
    pub fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
}

/// Iterator over a packed repeated varint field (`[packed = true]`).
pub struct PackedVarints<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Set when the payload ended inside a varint.
    pub malformed: bool,
}

impl<'a> PackedVarints<'a> {
    #[inline(always)]
    pub fn new(buf: &'a [u8]) -> Self {
        PackedVarints { buf, pos: 0, malformed: false }
    }
}

impl<'a> Iterator for PackedVarints<'a> {
    type Item = u64;
    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.pos >= self.buf.len() {
            return None;
        }
        match read_varint(self.buf, &mut self.pos) {
            Ok(v) => Some(v),
            Err(_) => {
                self.malformed = true;
                self.pos = self.buf.len();
                None
            }
        }
    }
}

/// Bytes as UTF-8, replacing invalid sequences (trace strings come from
/// arbitrary processes and kernels).
pub fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let mut p = 0;
        assert_eq!(read_varint(&[0x96, 0x01], &mut p), Ok(150));
        assert_eq!(p, 2);
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        let mut p = 0;
        assert_eq!(read_varint(&max, &mut p), Ok(u64::MAX));
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(read_varint(&over, &mut 0), Err(WireError::BadVarint));
        assert_eq!(read_varint(&[0x80, 0x80], &mut 0), Err(WireError::BadVarint));
        assert_eq!(read_varint(&[], &mut 0), Err(WireError::BadVarint));
    }

    #[test]
    fn fields_of_each_wire_type() {
        // field 1 varint 150; field 2 bytes "hi"; field 3 fixed64 7; field 4 fixed32 9
        let msg = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x19, 7, 0, 0, 0, 0, 0, 0, 0, 0x25, 9, 0, 0, 0];
        let got: Vec<_> = Fields::new(&msg).collect::<Result<_, _>>().unwrap();
        assert_eq!(
            got,
            vec![(1, Value::Varint(150)), (2, Value::Bytes(b"hi")), (3, Value::Fixed64(7)), (4, Value::Fixed32(9))]
        );
    }

    #[test]
    fn huge_declared_length_is_an_error_not_a_panic() {
        let msg = [0x12, 0xff, 0xff, 0xff, 0xff, 0x0f, b'x'];
        let got: Vec<_> = Fields::new(&msg).collect();
        assert_eq!(got, vec![Err(WireError::Truncated)]);
        let group = [0x0b];
        assert_eq!(Fields::new(&group).next(), Some(Err(WireError::BadWireType(3))));
    }

    #[test]
    fn packed() {
        let mut it = PackedVarints::new(&[1, 0x96, 0x01, 3]);
        assert_eq!(it.by_ref().collect::<Vec<_>>(), vec![1, 150, 3]);
        assert!(!it.malformed);
        let mut bad = PackedVarints::new(&[1, 0x80]);
        assert_eq!(bad.by_ref().collect::<Vec<_>>(), vec![1]);
        assert!(bad.malformed);
    }
}
