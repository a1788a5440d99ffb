//! MD5 (RFC 1321) of a local file: what a phone without `sha256sum` can
//! still hash the installed APK with (`md5sum`, in toybox since its first
//! Android release), so that `ab` can check it against the APK it was given
//! (docs/ab.md, "Device hygiene"). MD5 is broken against an adversary, not
//! against an accidental mix-up of two builds, which is all this guards.

use std::io::Read;
use std::path::Path;

/// Per-round shift amounts (RFC 1321, 3.4).
const S: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
    21,
];

/// floor(abs(sin(i + 1)) * 2^32), the RFC's table T.
fn table() -> [u32; 64] {
    let mut t = [0u32; 64];
    for (i, v) in t.iter_mut().enumerate() {
        *v = ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32;
    }
    t
}

struct Md5 {
    state: [u32; 4],
    t: [u32; 64],
}

impl Md5 {
    fn new() -> Md5 {
        Md5 { state: [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476], t: table() }
    }

    fn block(&mut self, chunk: &[u8; 64]) {
        let mut m = [0u32; 16];
        for (i, w) in m.iter_mut().enumerate() {
            *w = u32::from_le_bytes([chunk[4 * i], chunk[4 * i + 1], chunk[4 * i + 2], chunk[4 * i + 3]]);
        }
        let [mut a, mut b, mut c, mut d] = self.state;
        for (i, (&shift, &t)) in S.iter().zip(self.t.iter()).enumerate() {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a.wrapping_add(f).wrapping_add(t).wrapping_add(m[g]).rotate_left(shift);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(rotated);
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
}

/// MD5 of everything `input` yields, as 32 lowercase hex digits.
pub fn md5_hex(mut input: impl Read) -> std::io::Result<String> {
    let mut md5 = Md5::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut pending: Vec<u8> = Vec::with_capacity(128);
    let mut len: u64 = 0;
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        len += n as u64;
        pending.extend_from_slice(&buf[..n]);
        let whole = pending.len() / 64 * 64;
        for chunk in pending[..whole].chunks_exact(64) {
            md5.block(chunk.try_into().expect("64-byte chunk"));
        }
        pending.drain(..whole);
    }
    // Padding: 0x80, zeros to 56 mod 64, the bit length little-endian.
    pending.push(0x80);
    while pending.len() % 64 != 56 {
        pending.push(0);
    }
    pending.extend_from_slice(&len.wrapping_mul(8).to_le_bytes());
    for chunk in pending.chunks_exact(64) {
        md5.block(chunk.try_into().expect("64-byte chunk"));
    }
    Ok(md5.state.iter().flat_map(|w| w.to_le_bytes()).map(|b| format!("{b:02x}")).collect())
}

/// MD5 of a local file, hex.
pub fn file_md5(path: &Path) -> std::io::Result<String> {
    md5_hex(std::fs::File::open(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1321's test suite (appendix A.5).
    #[test]
    fn rfc_1321_test_suite() {
        let cases = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(md5_hex(input.as_bytes()).unwrap(), want, "{input:?}");
        }
    }

    /// Input read in pieces that do not fall on block boundaries.
    #[test]
    fn chunked_reads_hash_the_same() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(7).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 % 251) as u8).collect();
        assert_eq!(md5_hex(Trickle(&data)).unwrap(), md5_hex(&data[..]).unwrap());
    }
}
