//! The phone said no: the refusals of makers' ROMs, recognised in adb's
//! output in this one place, each with the one line that says which switch
//! to change on the phone (docs/capture.md, "Phones in the wild").
//!
//! The words matched are the error codes and permission names Android itself
//! prints (`INSTALL_FAILED_USER_RESTRICTED`, `WRITE_SECURE_SETTINGS`,
//! `INJECT_EVENTS`): they stay the same across Android versions while the
//! sentences around them change (Android 13 reworded the `input` refusal).
//! The replies they were taken from are in tests/fake_adb/replies/, each
//! with its public source; the tests below hold every one of them to its
//! kind. The exit status is not looked at: adb before 1.0.36, and devices
//! before Android 7, report 0 for every shell command.

use super::adb::AdbOutput;

/// A refusal no retry can get past: the phone's owner has to change a
/// setting first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `INSTALL_FAILED_USER_RESTRICTED`: MIUI/HyperOS with Install via USB
    /// off (also a user who tapped "deny" on an install prompt).
    InstallUserRestricted,
    /// `INSTALL_FAILED_VERIFICATION_FAILURE`: HyperOS with Install via USB
    /// off; elsewhere, the package verifier (Verify apps over USB).
    InstallVerificationFailure,
    /// `INSTALL_FAILED_ABORTED`: the install was not confirmed on the phone
    /// (vivo, with Verify apps over USB on).
    InstallAborted,
    /// `WRITE_SECURE_SETTINGS` denied to the shell: MIUI/HyperOS with USB
    /// debugging (Security settings) off, ColorOS/realme UI with permission
    /// monitoring on.
    SecureSettings,
    /// `INJECT_EVENTS` denied to the shell (`input`, `uiautomator`):
    /// MIUI/HyperOS with USB debugging (Security settings) off.
    InjectEvents,
}

/// Every refusal, with the word that gives it away, in the order they are
/// looked for.
const SIGNS: [(&str, Refusal); 5] = [
    ("INSTALL_FAILED_USER_RESTRICTED", Refusal::InstallUserRestricted),
    ("INSTALL_FAILED_VERIFICATION_FAILURE", Refusal::InstallVerificationFailure),
    ("INSTALL_FAILED_ABORTED", Refusal::InstallAborted),
    ("WRITE_SECURE_SETTINGS", Refusal::SecureSettings),
    ("INJECT_EVENTS", Refusal::InjectEvents),
];

impl Refusal {
    /// The refusal `text` (what a command printed) reports, if any.
    pub fn recognise(text: &str) -> Option<Refusal> {
        SIGNS.iter().find(|(sign, _)| text.contains(sign)).map(|&(_, refusal)| refusal)
    }

    /// The refusal in what an adb command printed, on either stream.
    pub fn of(out: &AdbOutput) -> Option<Refusal> {
        Refusal::recognise(&out.stderr).or_else(|| Refusal::recognise(&out.stdout))
    }

    /// The word Android printed, for the user to search.
    pub fn code(self) -> &'static str {
        SIGNS.iter().find(|(_, r)| *r == self).map_or("", |(sign, _)| sign)
    }

    /// The name tests/fake_adb/replies/ files give it (`# refusal:`).
    pub fn name(self) -> &'static str {
        match self {
            Refusal::InstallUserRestricted => "install-user-restricted",
            Refusal::InstallVerificationFailure => "install-verification-failure",
            Refusal::InstallAborted => "install-aborted",
            Refusal::SecureSettings => "secure-settings",
            Refusal::InjectEvents => "inject-events",
        }
    }

    /// What the phone refused, in the user's words.
    fn what(self) -> &'static str {
        match self {
            Refusal::InstallUserRestricted | Refusal::InstallVerificationFailure => "the phone refused the install",
            Refusal::InstallAborted => "the phone aborted the install",
            Refusal::SecureSettings => "the phone refused to change its settings",
            Refusal::InjectEvents => "the phone refused the simulated touches",
        }
    }

    /// Which switch to change, per ROM (the sources are in
    /// tests/fake_adb/replies/).
    fn advice(self) -> &'static str {
        match self {
            Refusal::InstallUserRestricted => {
                "turn on Developer options → Install via USB (MIUI/HyperOS; needs a Mi account and a SIM) and allow the install if the phone asks"
            }
            Refusal::InstallVerificationFailure => {
                "turn on Developer options → Install via USB (MIUI/HyperOS), or turn off Developer options → Verify apps over USB (other phones)"
            }
            Refusal::InstallAborted => {
                "allow the install if the phone asks, and turn off Developer options → Verify apps over USB (vivo)"
            }
            Refusal::SecureSettings => {
                "turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS), or Disable permission monitoring (ColorOS/realme UI)"
            }
            Refusal::InjectEvents => {
                "turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS; reboot the phone if it still refuses)"
            }
        }
    }
}

/// The one line: what was refused, Android's word for it, what to change.
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}, then run again", self.what(), self.code(), self.advice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// Every reply of the corpus, with its header fields.
    struct Reply {
        path: PathBuf,
        header: Vec<(String, String)>,
        body: String,
    }

    impl Reply {
        fn field(&self, key: &str) -> Option<&str> {
            self.header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
        }
    }

    fn corpus() -> Vec<Reply> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_adb/replies");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .filter(|d| d.path().is_dir())
            .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten().map(|f| f.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap();
                let (head, body): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| l.starts_with('#'));
                let header = head
                    .iter()
                    .filter_map(|l| l.strip_prefix("# ")?.split_once(": "))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                Reply { path, header, body: body.join("\n") }
            })
            .collect()
    }

    #[test]
    fn every_reply_of_the_corpus_is_recognised_as_its_kind() {
        let replies = corpus();
        assert!(replies.len() >= 8, "{} replies", replies.len());
        for r in &replies {
            let shown = r.path.display();
            assert!(r.header.first().is_some_and(|(k, v)| k == "source" && v.starts_with("https://")), "{shown}");
            for key in ["device", "command", "stream", "exit"] {
                assert!(r.field(key).is_some(), "{shown} has no `# {key}:`");
            }
            let kind = r.field("refusal").unwrap_or_else(|| panic!("{shown} has no `# refusal:`"));
            // `none`: a reply that is not a refusal (a missing tool, Android 9's empty dump).
            if kind == "none" {
                assert_eq!(Refusal::recognise(&r.body), None, "{shown}");
                continue;
            }
            assert!(!r.body.trim().is_empty(), "{shown}");
            assert_eq!(Refusal::recognise(&r.body).map(Refusal::name), Some(kind), "{shown}");
        }
    }

    #[test]
    fn what_is_not_a_refusal_is_not_recognised() {
        for text in [
            "adb: failed to install a.apk: Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE: Failed to override installation location]",
            "Error: Invalid arguments for command: tap",
            "Success",
            "",
        ] {
            assert_eq!(Refusal::recognise(text), None, "{text}");
        }
        let out = AdbOutput {
            status: Some(255),
            stdout: String::new(),
            stderr: "Exception occurred while executing 'swipe':\njava.lang.SecurityException: Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.\n".into(),
        };
        assert_eq!(Refusal::of(&out), Some(Refusal::InjectEvents));
        // adb before 1.0.36 reports 0 whatever the device said: the words decide.
        let quiet = AdbOutput { status: Some(0), ..out };
        assert_eq!(Refusal::of(&quiet), Some(Refusal::InjectEvents));
    }

    #[test]
    fn each_refusal_is_one_line_naming_its_switch() {
        assert_eq!(
            Refusal::InstallUserRestricted.to_string(),
            "the phone refused the install (INSTALL_FAILED_USER_RESTRICTED): turn on Developer options → Install via USB (MIUI/HyperOS; needs a Mi account and a SIM) and allow the install if the phone asks, then run again"
        );
        assert_eq!(
            Refusal::SecureSettings.to_string(),
            "the phone refused to change its settings (WRITE_SECURE_SETTINGS): turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS), or Disable permission monitoring (ColorOS/realme UI), then run again"
        );
        assert_eq!(
            Refusal::InjectEvents.to_string(),
            "the phone refused the simulated touches (INJECT_EVENTS): turn on Developer options → USB debugging (Security settings) (MIUI/HyperOS; reboot the phone if it still refuses), then run again"
        );
        for (_, r) in SIGNS {
            let line = r.to_string();
            assert!(!line.contains('\n') && line.contains(r.code()) && line.ends_with("then run again"), "{line}");
        }
    }
}
