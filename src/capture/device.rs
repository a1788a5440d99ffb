//! What fpsan needs to know about the device before tracing: which device
//! (`adb devices`, `--serial`/`ANDROID_SERIAL`), whether it can be used
//! (authorized, online), its Android version (`ro.build.version.sdk`), whether
//! the app is installed (`pm path`), and the Android 9/10 switch that starts
//! the tracing daemons (`persist.traced.enable`).

use std::time::Duration;

use super::adb::{Adb, SHORT_TIMEOUT};
use super::CaptureError;

/// First SDK level whose system image ships `/system/bin/perfetto` (Android 9).
pub const MIN_SDK: u32 = 28;
/// From this SDK level on (Android 11) traced runs by default.
pub const TRACED_DEFAULT_ON_SDK: u32 = 30;
pub const TRACED_PROP: &str = "persist.traced.enable";

/// One line of `adb devices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceEntry {
    pub serial: String,
    /// `device`, `unauthorized`, `offline`, `no permissions (...)`, `recovery`, ...
    pub state: String,
}

/// Parse `adb devices` as adb prints it: a `List of devices attached` header,
/// then `SERIAL<TAB>STATE` lines, then a blank line. Older adb prints the
/// `* daemon not running; starting now ...` lines on stdout; they are skipped.
pub fn parse_devices(text: &str) -> Vec<DeviceEntry> {
    text.lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty() && !l.starts_with("* ") && !l.starts_with("List of devices"))
        .filter_map(|l| {
            // The separator is a tab; `no permissions (...)` states contain
            // spaces, so split once.
            let (serial, state) = l.split_once('\t').or_else(|| l.split_once(' '))?;
            let serial = serial.trim();
            (!serial.is_empty()).then(|| DeviceEntry { serial: serial.to_string(), state: state.trim().to_string() })
        })
        .collect()
}

/// Where the wanted serial came from, for the error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SerialSource {
    Flag,
    Env,
}

impl SerialSource {
    pub fn as_str(self) -> &'static str {
        match self {
            SerialSource::Flag => "--serial",
            SerialSource::Env => "ANDROID_SERIAL",
        }
    }
}

/// Pick the device to trace and check that it is usable.
pub fn select_device(devices: &[DeviceEntry], wanted: Option<(&str, SerialSource)>) -> Result<String, CaptureError> {
    let entry = match wanted {
        Some((serial, source)) => match devices.iter().find(|d| d.serial == serial) {
            Some(d) => d,
            None => {
                return Err(CaptureError::SerialNotFound {
                    serial: serial.to_string(),
                    from: source.as_str(),
                    connected: list_serials(devices),
                })
            }
        },
        None => match devices {
            [] => return Err(CaptureError::NoDevice),
            [only] => only,
            several => return Err(CaptureError::SeveralDevices { serials: list_serials(several) }),
        },
    };
    check_state(entry)?;
    Ok(entry.serial.clone())
}

fn list_serials(devices: &[DeviceEntry]) -> String {
    if devices.is_empty() {
        "none".to_string()
    } else {
        devices.iter().map(|d| format!("{} ({})", d.serial, d.state)).collect::<Vec<_>>().join(", ")
    }
}

fn check_state(entry: &DeviceEntry) -> Result<(), CaptureError> {
    let serial = entry.serial.clone();
    match entry.state.as_str() {
        "device" => Ok(()),
        "unauthorized" => Err(CaptureError::Unauthorized { serial }),
        "authorizing" => Err(CaptureError::Unauthorized { serial }),
        "offline" => Err(CaptureError::Offline { serial }),
        s if s.starts_with("no permissions") => Err(CaptureError::NoPermissions { serial }),
        s => Err(CaptureError::DeviceState { serial, state: s.to_string() }),
    }
}

/// `adb devices` (without `-s`: it lists every device).
pub fn list_devices(adb: &Adb) -> Result<Vec<DeviceEntry>, CaptureError> {
    let out = adb.exec(&["devices"], None, SHORT_TIMEOUT)?;
    if !out.success() {
        return Err(CaptureError::AdbFailed { cmd: "adb devices".to_string(), detail: out.detail() });
    }
    Ok(parse_devices(&out.stdout))
}

/// `getprop NAME`, trimmed (empty when the property is unset).
pub fn getprop(adb: &Adb, name: &str) -> Result<String, CaptureError> {
    let cmd = format!("getprop {name}");
    let out = adb.shell(&cmd)?;
    if !out.success() {
        return Err(device_failed(adb, &cmd, &out.detail()));
    }
    Ok(out.stdout.trim().to_string())
}

pub fn setprop(adb: &Adb, name: &str, value: &str) -> Result<(), CaptureError> {
    let cmd = format!("setprop {name} {value}");
    let out = adb.shell(&cmd)?;
    if !out.success() {
        return Err(device_failed(adb, &cmd, &out.detail()));
    }
    Ok(())
}

/// The SDK level, checked against perfetto's minimum.
pub fn sdk_level(adb: &Adb) -> Result<u32, CaptureError> {
    let raw = getprop(adb, "ro.build.version.sdk")?;
    let sdk: u32 = raw.parse().map_err(|_| CaptureError::BadSdk { value: raw.clone() })?;
    if sdk < MIN_SDK {
        return Err(CaptureError::TooOld { sdk });
    }
    Ok(sdk)
}

/// `pm path PKG` prints `package:/data/app/.../base.apk` for an installed
/// package; nothing (exit 0 before Android 10, 1 after) when it is not.
pub fn check_installed(adb: &Adb, app: &str) -> Result<(), CaptureError> {
    let out = adb.shell(&format!("pm path {app}"))?;
    if out.stdout.lines().any(|l| l.trim().starts_with("package:")) {
        return Ok(());
    }
    if out.stderr.trim().is_empty() || out.stderr.contains("not found") || out.success() {
        return Err(CaptureError::AppNotInstalled {
            app: app.to_string(),
            serial: adb.serial().unwrap_or_default().to_string(),
        });
    }
    // `pm` itself failed (package manager not up after a boot, ...).
    Err(device_failed(adb, &format!("pm path {app}"), &out.detail()))
}

/// On Android 9/10 the daemons run only when `persist.traced.enable` is 1.
/// Turns it on if needed and returns the value to restore afterwards.
///
/// An unset property is restored as `0`: that is what it meant (traced off),
/// and setting it to `0` also stops the daemons again, which an empty value
/// would not.
pub fn enable_traced(adb: &Adb, wait_step: Duration) -> Result<Option<String>, CaptureError> {
    let old = getprop(adb, TRACED_PROP)?;
    if old == "1" {
        return Ok(None);
    }
    setprop(adb, TRACED_PROP, "1")?;
    let restore = if old.is_empty() { "0".to_string() } else { old };
    // init starts traced and traced_probes on the property change; perfetto
    // fails to connect if it runs before they are up.
    for _ in 0..20 {
        if getprop(adb, "init.svc.traced")? == "running" {
            return Ok(Some(restore));
        }
        std::thread::sleep(wait_step);
    }
    // Put the property back before failing: nothing is left changed.
    let _ = setprop(adb, TRACED_PROP, &restore);
    Err(CaptureError::TracedNotRunning { serial: adb.serial().unwrap_or_default().to_string() })
}

pub(crate) fn device_failed(adb: &Adb, cmd: &str, detail: &str) -> CaptureError {
    CaptureError::AdbFailed {
        cmd: format!("adb {}", adb.command_line(&["shell", cmd]).join(" ")),
        detail: detail.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = "* daemon not running; starting now at tcp:5037\n* daemon started successfully\n\
        List of devices attached\n\
        R58M12ABCDE\tdevice\n\
        emulator-5554\toffline\n\
        0123456789ABCDEF\tunauthorized\n\
        ZY2239\tno permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]\n\n";

    fn e(serial: &str, state: &str) -> DeviceEntry {
        DeviceEntry { serial: serial.into(), state: state.into() }
    }

    #[test]
    fn parses_adb_devices() {
        let d = parse_devices(REAL);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0], e("R58M12ABCDE", "device"));
        assert_eq!(d[1], e("emulator-5554", "offline"));
        assert_eq!(d[2], e("0123456789ABCDEF", "unauthorized"));
        assert_eq!(d[3].serial, "ZY2239");
        assert!(d[3].state.starts_with("no permissions (user in plugdev group"));
        assert!(parse_devices("List of devices attached\n\n").is_empty());
        assert_eq!(parse_devices("List of devices attached\r\nabc\tdevice\r\n\r\n"), vec![e("abc", "device")]);
    }

    #[test]
    fn selects_or_explains() {
        let one = [e("A", "device")];
        assert_eq!(select_device(&one, None).unwrap(), "A");
        assert!(matches!(select_device(&[], None), Err(CaptureError::NoDevice)));
        let two = [e("A", "device"), e("B", "device")];
        let err = select_device(&two, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "several devices are connected (A (device), B (device)): choose one with --serial SERIAL or ANDROID_SERIAL=SERIAL"
        );
        assert_eq!(select_device(&two, Some(("B", SerialSource::Env))).unwrap(), "B");
        let err = select_device(&two, Some(("C", SerialSource::Flag))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "device C (from --serial) is not connected; adb sees: A (device), B (device); check the serial with `adb devices`"
        );
        assert!(matches!(select_device(&[e("A", "unauthorized")], None), Err(CaptureError::Unauthorized { .. })));
        assert!(matches!(select_device(&[e("A", "offline")], None), Err(CaptureError::Offline { .. })));
        assert!(matches!(
            select_device(&[e("A", "no permissions (x); see [y]")], None),
            Err(CaptureError::NoPermissions { .. })
        ));
        assert!(matches!(
            select_device(&[e("A", "recovery")], None),
            Err(CaptureError::DeviceState { ref state, .. }) if state == "recovery"
        ));
    }
}
