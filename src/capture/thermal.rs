//! How hot the device is before a run (docs/ab.md, "Device hygiene").
//! `dumpsys thermalservice` gives Android's thermal status from Android 10
//! on (ThermalManagerService prints `Thermal Status: N` whatever the HAL
//! says). Android 9's `thermalservice` is a native service with no dump: it
//! prints nothing. Then the kernel's thermal zones are read instead
//! (`/sys/class/thermal/thermal_zone*/temp`, millidegrees Celsius by the
//! kernel's sysfs ABI) and the hottest one recorded; a phone whose zones the
//! shell cannot read leaves the source "unknown". Only a thermal status can
//! be waited on: zones have no threshold fpsan could know, so they are
//! recorded, not cooled down for.

use serde::{Deserialize, Serialize};

use super::adb::Adb;
use super::CaptureError;

/// Where the thermal state in runs.json came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThermalSource {
    /// `dumpsys thermalservice`'s Thermal Status.
    Thermalservice,
    /// The hottest readable `/sys/class/thermal` zone.
    ThermalZones,
    /// Neither answered.
    Unknown,
}

/// One reading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reading {
    pub source: ThermalSource,
    /// 0 none … 6 shutdown (Thermalservice only).
    pub status: Option<u32>,
    /// The hottest zone (`thermal_zone3 (cpu-1-0)`) and its °C (ThermalZones only).
    pub zone: Option<(String, f64)>,
}

/// The zones' type and temperature, one `PATH:VALUE` line each (toybox
/// grep's -H); a zone that cannot be read is left out by grep.
const ZONES_CMD: &str = "grep -H . /sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp";

/// Read the thermal state: the status, else the zones, else unknown.
pub(crate) fn read(adb: &Adb) -> Result<Reading, CaptureError> {
    let out = adb.shell("dumpsys thermalservice")?;
    if let Some(status) = status(&out.stdout) {
        return Ok(Reading { source: ThermalSource::Thermalservice, status: Some(status), zone: None });
    }
    let zones = adb.shell(ZONES_CMD)?;
    Ok(match hottest_zone(&zones.stdout) {
        Some(zone) => Reading { source: ThermalSource::ThermalZones, status: None, zone: Some(zone) },
        None => Reading { source: ThermalSource::Unknown, status: None, zone: None },
    })
}

/// `Thermal Status: N` of `dumpsys thermalservice`.
fn status(dump: &str) -> Option<u32> {
    dump.lines().find_map(|l| l.trim().strip_prefix("Thermal Status:")).and_then(|v| v.trim().parse().ok())
}

/// The hottest zone in `grep -H` output: its name (with its type when
/// known) and °C. Values outside -40…150 °C are not a temperature in
/// millidegrees (a sensor that is off, or one that reports another unit) and
/// are skipped.
fn hottest_zone(grep: &str) -> Option<(String, f64)> {
    let mut types = std::collections::HashMap::new();
    let mut temps = Vec::new();
    for line in grep.lines() {
        let Some(rest) = line.trim().strip_prefix("/sys/class/thermal/") else { continue };
        let Some((zone, rest)) = rest.split_once('/') else { continue };
        let Some((file, value)) = rest.split_once(':') else { continue };
        match file {
            "type" => {
                types.insert(zone.to_string(), value.trim().to_string());
            }
            "temp" => {
                if let Ok(milli) = value.trim().parse::<i64>() {
                    let c = milli as f64 / 1000.0;
                    if (-40.0..=150.0).contains(&c) {
                        temps.push((zone.to_string(), c));
                    }
                }
            }
            _ => {}
        }
    }
    let (zone, c) = temps.into_iter().fold(None::<(String, f64)>, |best, (z, c)| match best {
        Some((_, b)) if b >= c => best,
        _ => Some((z, c)),
    })?;
    let name = match types.get(&zone) {
        Some(t) if !t.is_empty() => format!("{zone} ({t})"),
        _ => zone,
    };
    Some((name, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_status_android_10_prints() {
        let dump = "IsStatusOverride: false\nThermalEventListeners:\n\tcallbacks: 1\nThermal Status: 2\nCached temperatures:\n";
        assert_eq!(status(dump), Some(2));
        // Android 9's native thermalservice dumps nothing.
        assert_eq!(status(""), None);
    }

    #[test]
    fn picks_the_hottest_zone_with_its_type() {
        let grep = "/sys/class/thermal/thermal_zone0/type:battery\n\
                    /sys/class/thermal/thermal_zone1/type:cpu-1-0\n\
                    /sys/class/thermal/thermal_zone2/type:off-sensor\n\
                    /sys/class/thermal/thermal_zone0/temp:31200\n\
                    /sys/class/thermal/thermal_zone1/temp:47800\n\
                    /sys/class/thermal/thermal_zone2/temp:-273000\n";
        assert_eq!(hottest_zone(grep), Some(("thermal_zone1 (cpu-1-0)".to_string(), 47.8)));
        assert_eq!(
            hottest_zone("/sys/class/thermal/thermal_zone5/temp:40000\n"),
            Some(("thermal_zone5".to_string(), 40.0))
        );
        // grep's own complaints (SELinux, no zones) give nothing.
        assert_eq!(hottest_zone("grep: /sys/class/thermal/thermal_zone*/type: No such file or directory\n"), None);
        assert_eq!(hottest_zone(""), None);
    }
}
