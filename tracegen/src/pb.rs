//! A minimal protobuf wire-format writer, written independently of the
//! project's decoder so that traces built with it test the decoder against a
//! second implementation of the format.
//!
//! Only what Perfetto traces need: varints (unsigned, and signed integers in
//! two's complement the way `int32`/`int64` fields are encoded),
//! length-delimited bytes/strings, nested messages and packed repeated
//! varints. Output is canonical (minimal varints, lengths exact).

/// Wire types (the low three bits of a field tag).
const WT_VARINT: u32 = 0;
const WT_LEN: u32 = 2;
const WT_I32: u32 = 5;

/// Number of bytes the varint encoding of `v` takes.
pub fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Appends the varint encoding of `v` to `buf`.
pub fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// An append-only protobuf message writer.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn with_capacity(n: usize) -> Self {
        Self { buf: Vec::with_capacity(n) }
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn clear(&mut self) {
        self.buf.clear();
    }

    fn tag(&mut self, field: u32, wire_type: u32) {
        put_varint(&mut self.buf, (u64::from(field) << 3) | u64::from(wire_type));
    }

    /// `uint32`/`uint64`/`bool`/enum field.
    pub fn uint(&mut self, field: u32, v: u64) {
        self.tag(field, WT_VARINT);
        put_varint(&mut self.buf, v);
    }

    /// `int32`/`int64` field: negative values take ten bytes (sign-extended
    /// to 64 bits), exactly as protoc-generated encoders do.
    pub fn int(&mut self, field: u32, v: i64) {
        self.uint(field, v as u64);
    }

    /// `float` field.
    pub fn float(&mut self, field: u32, v: f32) {
        self.tag(field, WT_I32);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn bool(&mut self, field: u32, v: bool) {
        self.uint(field, u64::from(v));
    }

    pub fn bytes(&mut self, field: u32, v: &[u8]) {
        self.tag(field, WT_LEN);
        put_varint(&mut self.buf, v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    pub fn string(&mut self, field: u32, v: &str) {
        self.bytes(field, v.as_bytes());
    }

    /// Writes a length-delimited field whose body is produced by `f`.
    ///
    /// The body is written in place first and then shifted right by the size
    /// of its length prefix, so no scratch buffer is needed at any depth.
    pub fn nested<R>(&mut self, field: u32, f: impl FnOnce(&mut Writer) -> R) -> R {
        self.tag(field, WT_LEN);
        let start = self.buf.len();
        let r = f(self);
        let end = self.buf.len();
        let body = (end - start) as u64;
        let n = varint_len(body);
        self.buf.resize(end + n, 0);
        self.buf.copy_within(start..end, start + n);
        let mut v = body;
        for b in &mut self.buf[start..start + n] {
            *b = (v as u8 & 0x7f) | if v >= 0x80 { 0x80 } else { 0 };
            v >>= 7;
        }
        r
    }

    /// Packed repeated varint field (`[packed = true]` uint/int/enum).
    /// Writes nothing for an empty sequence, like protoc does.
    pub fn packed_uint(&mut self, field: u32, vals: impl IntoIterator<Item = u64>) {
        let mut it = vals.into_iter().peekable();
        if it.peek().is_none() {
            return;
        }
        self.nested(field, |w| {
            for v in it {
                put_varint(&mut w.buf, v);
            }
        });
    }

    /// Packed repeated signed (`int32`/`int64`, not zigzag) field.
    pub fn packed_int(&mut self, field: u32, vals: impl IntoIterator<Item = i64>) {
        self.packed_uint(field, vals.into_iter().map(|v| v as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_match_the_protobuf_spec_examples() {
        // From the protobuf encoding guide: 1 -> 01, 150 -> 96 01, 300 -> ac 02.
        let mut b = Vec::new();
        put_varint(&mut b, 1);
        put_varint(&mut b, 150);
        put_varint(&mut b, 300);
        assert_eq!(b, [0x01, 0x96, 0x01, 0xac, 0x02]);
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(u64::MAX), 10);
    }

    #[test]
    fn fields_and_nesting() {
        let mut w = Writer::default();
        w.uint(1, 150); // 08 96 01
        w.int(2, -1); // 10 ff..ff 01 (ten bytes)
        w.string(3, "hi"); // 1a 02 68 69
        w.nested(4, |w| w.uint(1, 1)); // 22 02 08 01
        w.packed_uint(6, [3u64, 270]); // 32 03 03 8e 02
        w.packed_uint(7, std::iter::empty());
        let mut want = vec![0x08, 0x96, 0x01, 0x10];
        want.extend([0xff; 9]);
        want.push(0x01);
        want.extend([0x1a, 0x02, b'h', b'i', 0x22, 0x02, 0x08, 0x01]);
        want.extend([0x32, 0x03, 0x03, 0x8e, 0x02]);
        assert_eq!(w.buf, want);
    }

    #[test]
    fn nested_body_longer_than_127_gets_two_byte_length() {
        let mut w = Writer::default();
        w.nested(1, |w| w.bytes(2, &[7u8; 200]));
        // body = tag(1) + len(2) + 200 = 203 -> length prefix cb 01
        assert_eq!(&w.buf[..3], &[0x0a, 0xcb, 0x01]);
        assert_eq!(&w.buf[3..6], &[0x12, 0xc8, 0x01]);
        assert_eq!(w.buf.len(), 3 + 203);
    }
}
