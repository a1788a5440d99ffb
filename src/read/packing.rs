//! Archives and compressions fpsan does not open itself (it inflates whole-file
//! gzip and zstd: `source`), told by their magic bytes so that the error says
//! what the file is and how to get the trace out of it.

/// A container around the trace that fpsan does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    Zip,
    Tar,
    SevenZip,
    Bzip2,
    Xz,
    Lz4,
}

impl Packing {
    /// What `data` is packed in, by its first bytes (a tar by `ustar` at byte 257).
    pub fn of(data: &[u8]) -> Option<Packing> {
        let at = |offset: usize, magic: &[u8]| data.get(offset..offset + magic.len()) == Some(magic);
        Some(if at(0, b"PK\x03\x04") || at(0, b"PK\x05\x06") || at(0, b"PK\x07\x08") {
            Packing::Zip
        } else if at(257, b"ustar") {
            Packing::Tar
        } else if at(0, b"7z\xbc\xaf\x27\x1c") {
            Packing::SevenZip
        } else if at(0, b"BZh") {
            Packing::Bzip2
        } else if at(0, b"\xfd7zXZ\x00") {
            Packing::Xz
        } else if at(0, b"\x04\x22\x4d\x18") {
            Packing::Lz4
        } else {
            return None;
        })
    }

    /// What the file is, after "PATH is ".
    pub fn what(self) -> &'static str {
        match self {
            Packing::Zip => "a zip archive",
            Packing::Tar => "a tar archive",
            Packing::SevenZip => "a 7z archive",
            Packing::Bzip2 => "bzip2-compressed",
            Packing::Xz => "xz-compressed",
            Packing::Lz4 => "lz4-compressed",
        }
    }

    /// What to do.
    pub fn how(self) -> &'static str {
        match self {
            Packing::Zip => {
                "unzip it and give fpsan the trace inside (an Android bugreport keeps its traces under \
                 FS/data/misc/perfetto-traces/)"
            }
            Packing::Tar => "extract it (tar xf) and give fpsan the trace inside",
            Packing::SevenZip => "extract it (7z x) and give fpsan the trace inside",
            Packing::Bzip2 => "decompress it (bunzip2) and give fpsan the result; fpsan reads gzip and zstd itself",
            Packing::Xz => "decompress it (xz -d) and give fpsan the result; fpsan reads gzip and zstd itself",
            Packing::Lz4 => "decompress it (lz4 -d) and give fpsan the result; fpsan reads gzip and zstd itself",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_told_by_their_magic() {
        assert_eq!(Packing::of(b"PK\x03\x04\x14\x00"), Some(Packing::Zip));
        assert_eq!(Packing::of(b"PK\x05\x06"), Some(Packing::Zip));
        let mut tar = vec![0u8; 512];
        tar[..9].copy_from_slice(b"trace.pb\0");
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(Packing::of(&tar), Some(Packing::Tar));
        assert_eq!(Packing::of(b"7z\xbc\xaf\x27\x1c\x00\x04"), Some(Packing::SevenZip));
        assert_eq!(Packing::of(b"BZh91AY&SY"), Some(Packing::Bzip2));
        assert_eq!(Packing::of(b"\xfd7zXZ\x00\x00"), Some(Packing::Xz));
        assert_eq!(Packing::of(b"\x04\x22\x4d\x18\x64"), Some(Packing::Lz4));
        // A Perfetto trace, text, and too-short input are none of them.
        assert_eq!(Packing::of(b"\x0a\x10PK\x03\x04"), None);
        assert_eq!(Packing::of(b"# tracer: nop\n"), None);
        assert_eq!(Packing::of(b"PK"), None);
    }
}
