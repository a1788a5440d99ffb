//! Which APK is installed (docs/ab.md, "Device hygiene"): the SHA-256 of the
//! installed base.apk, read on the device so that it is the file Android runs.
//! A phone without `sha256sum` gets the next thing it has, in this order:
//! `sha256sum`, `toybox sha256sum` (toybox has had it since 0.7.2, but only
//! when built with libcrypto until 0.8.6), `md5sum`, `toybox md5sum` (in
//! toybox since 0.4.1, before its first Android release), else no hash at
//! all: the file's size (`stat -c %s`, else `ls -l`) with the package's
//! `lastUpdateTime` and versionCode. The method is recorded; MD5 and size are
//! weaker than SHA-256 and never pass for it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::adb::Adb;
use super::CaptureError;

/// How the installed APK was identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityMethod {
    /// SHA-256 of base.apk (in `apk_sha256`).
    Sha256,
    /// MD5 of base.apk: a hash, but not the one the builds are recorded by.
    Md5,
    /// No hash tool answered: base.apk's size, with the package's
    /// lastUpdateTime and versionCode. Two builds of one size look alike.
    SizeAndVersion,
}

impl IdentityMethod {
    /// Anything but SHA-256 (docs/ab.md says what `ab` does then).
    pub fn weaker(self) -> bool {
        self != IdentityMethod::Sha256
    }
}

/// A way of reading the identity: a tool and the method it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tool {
    pub method: IdentityMethod,
    /// The command, run as `COMMAND PATH`.
    pub command: &'static str,
}

/// The tools in the order they are tried.
pub(crate) const TOOLS: [Tool; 6] = [
    Tool { method: IdentityMethod::Sha256, command: "sha256sum" },
    Tool { method: IdentityMethod::Sha256, command: "toybox sha256sum" },
    Tool { method: IdentityMethod::Md5, command: "md5sum" },
    Tool { method: IdentityMethod::Md5, command: "toybox md5sum" },
    Tool { method: IdentityMethod::SizeAndVersion, command: "stat -c %s" },
    Tool { method: IdentityMethod::SizeAndVersion, command: "ls -l" },
];

/// The installed APK's identity as read on the device (runs.json,
/// `device.apk_identity`). The SHA-256 itself stays in `device.apk_sha256`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApkIdentity {
    pub method: IdentityMethod,
    /// The command that answered (`sha256sum`, `toybox md5sum`, `ls -l`, …).
    pub tool: String,
    /// Not a SHA-256: weaker than what the builds are recorded by.
    pub weaker: bool,
    /// base.apk as `pm path` gives it.
    pub path: String,
    pub md5: Option<String>,
    pub size_bytes: Option<u64>,
    /// `dumpsys package`'s lastUpdateTime (the device's local time).
    pub last_update_time: Option<String>,
}

/// What was read: the SHA-256 when a SHA-256 tool answered, and the identity
/// (None when `pm path` names no base.apk).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Read {
    pub sha256: Option<String>,
    pub identity: Option<ApkIdentity>,
    /// The index in [`TOOLS`] that answered, for the next run to start at.
    pub tool: Option<usize>,
}

/// Read the identity of `app`'s installed base.apk, trying [`TOOLS`] from
/// `start` (the one that answered last time: a phone does not gain tools
/// between runs). `package` is `dumpsys package APP`'s output.
pub(crate) fn read(adb: &Adb, app: &str, package: &str, start: usize) -> Result<Read, CaptureError> {
    let paths = adb.shell(&format!("pm path {app}"))?.stdout;
    let Some(base) = paths.lines().filter_map(|l| l.trim().strip_prefix("package:")).find(|p| p.ends_with("base.apk"))
    else {
        return Ok(Read::default());
    };
    // The path goes into a shell command line: only the characters pm uses.
    if !base.chars().all(|c| c.is_ascii_alphanumeric() || "/._-~=+".contains(c)) {
        return Ok(Read::default());
    }
    for (k, tool) in TOOLS.iter().enumerate().skip(start) {
        let out = adb.shell(&format!("{} {base}", tool.command))?;
        let Some(value) = parse(tool, &out.stdout, base) else { continue };
        let mut identity = ApkIdentity {
            method: tool.method,
            tool: tool.command.to_string(),
            weaker: tool.method.weaker(),
            path: base.to_string(),
            md5: None,
            size_bytes: None,
            last_update_time: None,
        };
        let mut sha256 = None;
        match tool.method {
            IdentityMethod::Sha256 => sha256 = Some(value),
            IdentityMethod::Md5 => identity.md5 = Some(value),
            IdentityMethod::SizeAndVersion => {
                identity.size_bytes = value.parse().ok();
                identity.last_update_time = last_update_time(package);
            }
        }
        return Ok(Read { sha256, identity: Some(identity), tool: Some(k) });
    }
    Ok(Read::default())
}

/// The value a tool printed for `path`, if it is one: a hex digest of the
/// method's length, or a size. A missing tool prints an error instead
/// (mksh: `sh: sha256sum: inaccessible or not found`; toybox: `toybox:
/// Unknown command sha256sum`), which is not one.
fn parse(tool: &Tool, stdout: &str, path: &str) -> Option<String> {
    let first = stdout.lines().next()?.trim();
    let hex = |len: usize| {
        let h = first.split_whitespace().next()?;
        (h.len() == len && h.chars().all(|c| c.is_ascii_hexdigit())).then(|| h.to_ascii_lowercase())
    };
    match (tool.method, tool.command) {
        (IdentityMethod::Sha256, _) => hex(64),
        (IdentityMethod::Md5, _) => hex(32),
        (_, "ls -l") => {
            // toybox ls -l: MODE LINKS OWNER GROUP SIZE DATE TIME PATH
            let words: Vec<&str> = first.split_whitespace().collect();
            (words.last() == Some(&path) && words.len() >= 8)
                .then(|| words[4])
                .filter(|w| w.parse::<u64>().is_ok())
                .map(str::to_string)
        }
        _ => first.parse::<u64>().ok().map(|n| n.to_string()),
    }
}

/// `lastUpdateTime=2024-05-01 10:20:30` in `dumpsys package` (AOSP's
/// Settings.java prints it as yyyy-MM-dd HH:mm:ss, one line per package).
fn last_update_time(package: &str) -> Option<String> {
    package.lines().find_map(|l| l.trim().strip_prefix("lastUpdateTime=")).map(|v| v.trim().to_string())
}

/// The local APK a build was given as (runs.json, `builds`).
#[derive(Debug, Clone, PartialEq)]
pub struct LocalApk {
    pub sha256: String,
    pub md5: String,
    pub size_bytes: u64,
}

impl LocalApk {
    pub fn of(path: &Path) -> std::io::Result<LocalApk> {
        Ok(LocalApk { sha256: file_sha256(path)?, md5: file_md5(path)?, size_bytes: std::fs::metadata(path)?.len() })
    }
}

/// How the installed APK compares with the local one.
#[derive(Debug, PartialEq)]
pub enum Check {
    /// The same SHA-256, or the same MD5.
    Same,
    /// Only size could be compared, and it is the same: not proof.
    SameSize,
    /// Not the intended APK: what differs.
    Differs(String),
    /// Nothing could be read on the device.
    Unknown,
}

/// Compare what the device has (`sha256`, `identity`) with `local`: each
/// identity against its own kind, never a weaker one as a hash.
pub fn check(sha256: Option<&str>, identity: Option<&ApkIdentity>, local: &LocalApk) -> Check {
    let Some(identity) = identity else {
        return Check::Unknown;
    };
    match identity.method {
        IdentityMethod::Sha256 => match sha256 {
            Some(s) if s == local.sha256 => Check::Same,
            Some(s) => Check::Differs(format!("device SHA-256 {s}, expected {}", local.sha256)),
            None => Check::Unknown,
        },
        IdentityMethod::Md5 => match identity.md5.as_deref() {
            Some(m) if m == local.md5 => Check::Same,
            Some(m) => Check::Differs(format!("device MD5 {m} by `{}`, expected {}", identity.tool, local.md5)),
            None => Check::Unknown,
        },
        IdentityMethod::SizeAndVersion => match identity.size_bytes {
            Some(n) if n == local.size_bytes => Check::SameSize,
            Some(n) => Check::Differs(format!(
                "device base.apk is {n} bytes by `{}`, the APK given is {}",
                identity.tool, local.size_bytes
            )),
            None => Check::Unknown,
        },
    }
}

/// SHA-256 of a local file, hex.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    file_digest::<sha2::Sha256>(path)
}

/// MD5 of a local file, hex: what a phone without `sha256sum` can still hash
/// the installed APK with. MD5 is broken against an adversary, not against
/// an accidental mix-up of two builds, which is all this guards.
pub fn file_md5(path: &Path) -> std::io::Result<String> {
    file_digest::<md5::Md5>(path)
}

fn file_digest<D: sha2::Digest>(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let mut hasher = D::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-2's and RFC 1321's "abc" vectors, through the files the APKs
    /// are read from.
    #[test]
    fn file_digests_are_sha256_and_md5() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(file_sha256(&p).unwrap(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(file_md5(&p).unwrap(), "900150983cd24fb0d6963f7d28e17f72");
    }

    const BASE: &str = "/data/app/~~inst1==/com.example.app-v1==/base.apk";

    fn tool(command: &str) -> Tool {
        *TOOLS.iter().find(|t| t.command == command).unwrap()
    }

    #[test]
    fn parses_each_tools_answer_or_none() {
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(parse(&tool("sha256sum"), &format!("{sha}  {BASE}\n"), BASE).as_deref(), Some(sha));
        // A missing tool: mksh's and toybox's words, never a value.
        assert_eq!(parse(&tool("sha256sum"), "/system/bin/sh: sha256sum: inaccessible or not found\n", BASE), None);
        assert_eq!(parse(&tool("toybox sha256sum"), "toybox: Unknown command sha256sum\n", BASE), None);
        assert_eq!(parse(&tool("sha256sum"), "", BASE), None);
        let md5 = "900150983cd24fb0d6963f7d28e17f72";
        assert_eq!(parse(&tool("md5sum"), &format!("{md5}  {BASE}\n"), BASE).as_deref(), Some(md5));
        // An MD5 is not a SHA-256, whatever printed it.
        assert_eq!(parse(&tool("sha256sum"), &format!("{md5}  {BASE}\n"), BASE), None);
        assert_eq!(parse(&tool("stat -c %s"), "31337\n", BASE).as_deref(), Some("31337"));
        assert_eq!(parse(&tool("stat -c %s"), "stat: unsupported\n", BASE), None);
        let ls = format!("-rw-r--r-- 1 system system 31337 2024-05-01 10:20 {BASE}\n");
        assert_eq!(parse(&tool("ls -l"), &ls, BASE).as_deref(), Some("31337"));
        assert_eq!(parse(&tool("ls -l"), &format!("ls: {BASE}: Permission denied\n"), BASE), None);
    }

    #[test]
    fn reads_last_update_time() {
        let pkg = "    versionCode=42 minSdk=24 targetSdk=34\n    firstInstallTime=2024-04-30 09:00:00\n    lastUpdateTime=2024-05-01 10:20:30\n";
        assert_eq!(last_update_time(pkg).as_deref(), Some("2024-05-01 10:20:30"));
        assert_eq!(last_update_time("versionCode=1\n"), None);
    }

    #[test]
    fn each_identity_is_checked_against_its_own_kind() {
        let local = LocalApk { sha256: "aa".repeat(32), md5: "bb".repeat(16), size_bytes: 100 };
        let id = |method, md5: Option<&str>, size| ApkIdentity {
            method,
            tool: "t".into(),
            weaker: false,
            path: BASE.into(),
            md5: md5.map(str::to_string),
            size_bytes: size,
            last_update_time: None,
        };
        let sha = id(IdentityMethod::Sha256, None, None);
        assert_eq!(check(Some(&local.sha256), Some(&sha), &local), Check::Same);
        assert_eq!(
            check(Some(&"cc".repeat(32)), Some(&sha), &local),
            Check::Differs(format!("device SHA-256 {}, expected {}", "cc".repeat(32), local.sha256))
        );
        assert_eq!(check(None, Some(&id(IdentityMethod::Md5, Some(&local.md5), None)), &local), Check::Same);
        assert!(matches!(check(None, Some(&id(IdentityMethod::Md5, Some("dd"), None)), &local), Check::Differs(_)));
        // The same size is not called the same APK.
        let size = id(IdentityMethod::SizeAndVersion, None, Some(100));
        assert_eq!(check(None, Some(&size), &local), Check::SameSize);
        assert_eq!(
            check(None, Some(&id(IdentityMethod::SizeAndVersion, None, Some(99))), &local),
            Check::Differs("device base.apk is 99 bytes by `t`, the APK given is 100".into())
        );
        assert_eq!(check(None, None, &local), Check::Unknown);
    }
}
