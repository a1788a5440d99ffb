//! Device hygiene for repeated runs (`capture --runs`, `ab`;
//! docs/ab.md, "Device hygiene"): before the first run the screen is kept
//! awake and the animation scales are put at 1; before every run the screen
//! is woken and unlocked, the device is let cool down while it throttles
//! (bounded), and its state is read and recorded: battery, temperature,
//! thermal state (`thermal`), the app's installed version, APK identity
//! (`identity`) and compilation state. [`Hygiene`] puts back every setting
//! it changed, on every path out.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::adb::Adb;
use super::device::device_failed;
use super::identity::{self, ApkIdentity, IdentityMethod};
use super::refusal::Refusal;
use super::thermal::{self, ThermalSource};
use super::CaptureError;
use crate::sink::Sink;

/// The global settings of the animation scales; at 1 the app animates as
/// users see it (0 would skip the very frames being measured).
const ANIMATION_SCALES: [&str; 3] = ["window_animation_scale", "transition_animation_scale", "animator_duration_scale"];
const STAY_ON: &str = "stay_on_while_plugged_in";

/// What the device was like just before a run (recorded in `runs.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceState {
    /// `dumpsys power` mWakefulness was Awake (after waking it if needed).
    pub awake: Option<bool>,
    /// The keyguard showed (after dismissing it if it could be).
    pub locked: Option<bool>,
    /// Battery level in %.
    pub battery_pct: Option<u32>,
    /// Battery temperature in °C.
    pub battery_temp_c: Option<f64>,
    /// `dumpsys thermalservice` Thermal Status when the run started: 0 none,
    /// 1 light, 2 moderate, 3 severe, 4 critical, 5 emergency, 6 shutdown.
    pub thermal_status: Option<u32>,
    /// Where the thermal state came from (absent from older records).
    pub thermal_source: Option<ThermalSource>,
    /// Without a status: the hottest `/sys/class/thermal` zone and its °C.
    pub thermal_zone: Option<String>,
    pub thermal_zone_c: Option<f64>,
    /// The device still throttled when the cool-down's bound ran out.
    pub throttled: bool,
    /// Seconds spent waiting for the device to cool down.
    pub cooled_down_s: f64,
    pub version_code: Option<String>,
    pub version_name: Option<String>,
    /// SHA-256 of the installed base.apk (read on the device).
    pub apk_sha256: Option<String>,
    /// How the installed APK was identified (absent from older records).
    pub apk_identity: Option<ApkIdentity>,
    /// The dexopt status (`speed-profile`, `speed`, `verify`, …).
    pub compile_status: Option<String>,
}

/// A setting the phone refused to change (recorded in `runs.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingNotSet {
    pub name: String,
    /// Its value, which stays for the runs.
    pub value: String,
    /// The phone's refusal, with the switch that allows it.
    pub reason: String,
}

/// The device's settings for a series of runs, and the values to put back.
pub struct Hygiene<'a> {
    adb: &'a Adb,
    /// (setting, old value) to restore, in the order they were changed.
    changed: Vec<(&'static str, String)>,
    /// The settings the phone refused to change, and why (the first refusal).
    not_set: Vec<SettingNotSet>,
    refusal: Option<Refusal>,
    sink: Sink,
    /// The identity tool that answered last ([`identity::TOOLS`]).
    identity_tool: AtomicUsize,
    /// A weaker identity or thermal source was told to the user (once each).
    told_identity: AtomicBool,
    told_thermal: AtomicBool,
}

impl<'a> Hygiene<'a> {
    /// Keep the screen on while plugged in and put the animation scales at 1,
    /// remembering what was there. A setting the phone refuses to change
    /// (MIUI's security switch) is recorded, not an error: whether the runs
    /// may go on without it is the caller's decision ([`Hygiene::refusal`]).
    pub fn begin(adb: &'a Adb, sink: Sink) -> Result<Hygiene<'a>, CaptureError> {
        let mut h = Hygiene {
            adb,
            changed: Vec::new(),
            not_set: Vec::new(),
            refusal: None,
            sink,
            identity_tool: AtomicUsize::new(0),
            told_identity: AtomicBool::new(false),
            told_thermal: AtomicBool::new(false),
        };
        let stay_on = get_setting(adb, STAY_ON)?;
        if stay_on != "7" {
            h.change(STAY_ON, stay_on, "svc power stayon true")?;
        }
        for name in ANIMATION_SCALES {
            let old = get_setting(adb, name)?;
            if old.parse::<f64>().ok() != Some(1.0) {
                h.change(name, old, &format!("settings put global {name} 1"))?;
            }
        }
        Ok(h)
    }

    /// Run `cmd`, which sets `name` (now `old`): remembered to be put back,
    /// or recorded as refused.
    fn change(&mut self, name: &'static str, old: String, cmd: &str) -> Result<(), CaptureError> {
        match shell_ok(self.adb, cmd) {
            Ok(()) => self.changed.push((name, old)),
            Err(CaptureError::Refused { refusal, .. }) => {
                self.not_set.push(SettingNotSet { name: name.to_string(), value: old, reason: refusal.to_string() });
                self.refusal.get_or_insert(refusal);
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// What was changed (setting names), for the user.
    pub fn changed(&self) -> Vec<&'static str> {
        self.changed.iter().map(|(n, _)| *n).collect()
    }

    /// The settings the phone refused to change, with the values they keep.
    pub fn not_set(&self) -> &[SettingNotSet] {
        &self.not_set
    }

    /// Why the phone refused them (the first refusal), if it did.
    pub fn refusal(&self) -> Option<Refusal> {
        self.refusal
    }

    /// Wake and unlock the screen, wait (at most `cool_down`) while the
    /// device throttles, then read its state and the app's.
    pub fn before_run(
        &self,
        app: &str,
        cool_down: Duration,
        poll: Duration,
        stop: &AtomicBool,
    ) -> Result<DeviceState, CaptureError> {
        let adb = self.adb;
        let mut s = DeviceState::default();
        let mut awake = wakefulness(adb)?;
        if awake == Some(false) {
            shell_ok(adb, "input keyevent KEYCODE_WAKEUP")?;
            awake = wakefulness(adb)?;
        }
        s.awake = awake;
        let mut locked = keyguard_showing(adb)?;
        if locked == Some(true) {
            shell_ok(adb, "wm dismiss-keyguard")?;
            locked = keyguard_showing(adb)?;
        }
        if locked == Some(true) {
            return Err(CaptureError::ScreenLocked { serial: adb.serial().unwrap_or("the device").to_string() });
        }
        s.locked = locked;
        let started = Instant::now();
        // Whether the device was waited for: a reading that needs no wait
        // records 0 s, however long the `dumpsys` itself took.
        let mut waited = false;
        loop {
            let reading = thermal::read(adb)?;
            s.thermal_source = Some(reading.source);
            s.thermal_status = reading.status;
            (s.thermal_zone, s.thermal_zone_c) = reading.zone.map_or((None, None), |(z, c)| (Some(z), Some(c)));
            self.tell_thermal(reading.source);
            // Only a status can be waited on (thermal.rs says why).
            if s.thermal_status.unwrap_or(0) == 0 || stop.load(Ordering::SeqCst) {
                break;
            }
            if started.elapsed() >= cool_down {
                s.throttled = true;
                break;
            }
            waited = true;
            // In slices, so that Ctrl-C does not wait for the next poll.
            let until =
                Instant::now() + poll.min(cool_down.saturating_sub(started.elapsed())).max(Duration::from_millis(1));
            while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(until.saturating_duration_since(Instant::now()).min(Duration::from_millis(100)));
            }
        }
        s.cooled_down_s = if waited { (started.elapsed().as_secs_f64() * 10.0).round() / 10.0 } else { 0.0 };
        let battery = adb.shell("dumpsys battery")?.stdout;
        s.battery_pct = field(&battery, "level:").and_then(|v| v.parse().ok());
        s.battery_temp_c = field(&battery, "temperature:").and_then(|v| v.parse::<f64>().ok()).map(|t| t / 10.0);
        let package = adb.shell(&format!("dumpsys package {app}"))?.stdout;
        s.version_code = word_after(&package, "versionCode=");
        s.version_name = word_after(&package, "versionName=");
        s.compile_status = package.find("[status=").map(|i| {
            let rest = &package[i + "[status=".len()..];
            rest[..rest.find(']').unwrap_or(rest.len())].to_string()
        });
        let start = self.identity_tool.load(Ordering::SeqCst);
        let read = identity::read(adb, app, &package, start)?;
        if let Some(k) = read.tool {
            self.identity_tool.store(k, Ordering::SeqCst);
        }
        s.apk_sha256 = read.sha256;
        s.apk_identity = read.identity;
        if let Some(id) = &s.apk_identity {
            self.tell_identity(id);
        }
        Ok(s)
    }

    fn serial(&self) -> &str {
        self.adb.serial().unwrap_or("the device")
    }

    /// Say once per series where the thermal state comes from when it is
    /// not a thermal status (runs.json records it for every run).
    fn tell_thermal(&self, source: ThermalSource) {
        let line = match source {
            ThermalSource::Thermalservice => return,
            ThermalSource::ThermalZones => format!(
                "{} gives no thermal status (`dumpsys thermalservice`, Android 9): the hottest /sys/class/thermal zone is recorded instead, and runs are not cooled down",
                self.serial()
            ),
            ThermalSource::Unknown => format!(
                "the thermal state of {} is unknown (no thermal status, /sys/class/thermal unreadable): recorded as unknown, and runs are not cooled down",
                self.serial()
            ),
        };
        if !self.told_thermal.swap(true, Ordering::SeqCst) {
            self.sink.warn(None, &line);
        }
    }

    /// Say once per series when the installed APK is identified by less
    /// than its SHA-256.
    fn tell_identity(&self, id: &ApkIdentity) {
        let line = match id.method {
            IdentityMethod::Sha256 => return,
            IdentityMethod::Md5 => format!(
                "{} has no sha256sum: the installed APK is identified by its MD5 (`{}`), weaker than SHA-256",
                self.serial(),
                id.tool
            ),
            IdentityMethod::SizeAndVersion => format!(
                "{} has no hash tool (sha256sum, md5sum): the installed APK is identified only by its size (`{}`), lastUpdateTime and versionCode; two builds of one size cannot be told apart",
                self.serial(),
                id.tool
            ),
        };
        if !self.told_identity.swap(true, Ordering::SeqCst) {
            self.sink.warn(None, &line);
        }
    }

    /// Put every changed setting back; returns what could not be, each with
    /// the command that does it by hand.
    fn restore(&mut self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, old) in self.changed.drain(..).rev() {
            let cmd = restore_command(name, &old);
            if let Err(e) = shell_ok(self.adb, &cmd) {
                problems.push(format!(
                    "could not restore {name} on {s} ({e}): run `adb -s {s} shell {cmd}`",
                    s = self.adb.serial().unwrap_or("the device")
                ));
            }
        }
        problems
    }
}

/// Dropping it (the series' normal end, an error, Ctrl-C) puts the settings
/// back and warns about any that could not be.
impl Drop for Hygiene<'_> {
    fn drop(&mut self) {
        for p in self.restore() {
            self.sink.warn(None, &p);
        }
    }
}

/// The command that puts `name` back to `old`. Stay-awake goes back the way
/// it was set, with `svc` (MIUI refuses `settings put` to the shell but
/// lets `svc` through), when `svc` can say the value: 0 false, 1 ac, 2 usb,
/// 4 wireless, 7 true. An unset setting reads "null"; deleting it restores that.
fn restore_command(name: &str, old: &str) -> String {
    let svc_word = match old {
        "0" => Some("false"),
        "1" => Some("ac"),
        "2" => Some("usb"),
        "4" => Some("wireless"),
        "7" => Some("true"),
        _ => None,
    };
    match svc_word {
        Some(word) if name == STAY_ON => format!("svc power stayon {word}"),
        _ if old == "null" => format!("settings delete global {name}"),
        _ => format!("settings put global {name} {old}"),
    }
}

fn get_setting(adb: &Adb, name: &str) -> Result<String, CaptureError> {
    let out = adb.shell(&format!("settings get global {name}"))?;
    if !out.success() {
        return Err(device_failed(adb, &format!("settings get global {name}"), &out.detail()));
    }
    Ok(out.stdout.trim().to_string())
}

/// `cmd` did its job; a refusal is recognised whatever the exit status.
fn shell_ok(adb: &Adb, cmd: &str) -> Result<(), CaptureError> {
    let out = adb.shell(cmd)?;
    if let Some(refusal) = Refusal::of(&out) {
        return Err(CaptureError::Refused { during: format!("`{cmd}`"), refusal });
    }
    if out.success() {
        Ok(())
    } else {
        Err(device_failed(adb, cmd, &out.detail()))
    }
}

/// `dumpsys power`: mWakefulness=Awake|Asleep|Dreaming|Dozing.
fn wakefulness(adb: &Adb) -> Result<Option<bool>, CaptureError> {
    let out = adb.shell("dumpsys power")?.stdout;
    Ok(word_after(&out, "mWakefulness=").map(|w| w == "Awake"))
}

/// `dumpsys window`: the keyguard's state, by the names Android 9–16 print.
fn keyguard_showing(adb: &Adb) -> Result<Option<bool>, CaptureError> {
    let out = adb.shell("dumpsys window")?.stdout;
    Ok(["isKeyguardShowing=", "mDreamingLockscreen=", "mShowingLockscreen="]
        .iter()
        .find_map(|k| word_after(&out, k))
        .map(|v| v == "true"))
}

/// The value after `key` on the first line that starts with it (trimmed).
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| l.trim().strip_prefix(key).map(|v| v.trim().to_string()))
}

/// The word right after the first `key` anywhere in `text`.
fn word_after(text: &str, key: &str) -> Option<String> {
    let i = text.find(key)? + key.len();
    let word: String = text[i..].chars().take_while(|c| !c.is_whitespace()).collect();
    (!word.is_empty()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_go_back_the_way_they_were_set() {
        assert_eq!(restore_command(STAY_ON, "0"), "svc power stayon false");
        assert_eq!(restore_command(STAY_ON, "2"), "svc power stayon usb");
        // ac|usb has no svc word.
        assert_eq!(restore_command(STAY_ON, "3"), "settings put global stay_on_while_plugged_in 3");
        assert_eq!(restore_command("window_animation_scale", "0.5"), "settings put global window_animation_scale 0.5");
        assert_eq!(restore_command("window_animation_scale", "null"), "settings delete global window_animation_scale");
    }

    #[test]
    fn reads_dumpsys_fields() {
        let battery = "Current Battery Service state:\n  AC powered: false\n  level: 87\n  temperature: 312\n";
        assert_eq!(field(battery, "level:").as_deref(), Some("87"));
        assert_eq!(field(battery, "temperature:").as_deref(), Some("312"));
        let pkg = "    versionCode=42 minSdk=24 targetSdk=34\n    versionName=2.1.0-rc1\n      arm64: [status=speed-profile] [reason=install-dm]\n";
        assert_eq!(word_after(pkg, "versionCode=").as_deref(), Some("42"));
        assert_eq!(word_after(pkg, "versionName=").as_deref(), Some("2.1.0-rc1"));
        assert_eq!(
            word_after("mShowingDream=false mDreamingLockscreen=true", "mDreamingLockscreen="),
            Some("true".into())
        );
    }
}
