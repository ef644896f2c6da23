//! `omp find -L` and `--json` lines, formatted here so that they stream: byte for byte what the
//! CLI printed when it formatted collected entries in JavaScript (`toFixed`, `toISOString`,
//! `JSON.stringify`), which is what the tests hold them to.

use std::io::Write;

use crate::stream::json;
use crate::types::EntryKind;

/// One entry's line: `<size, 7 wide>  <mtime, ISO 8601 UTC>  <path>` (`-L`).
pub(crate) fn long_line(out: &mut Vec<u8>, size: u64, mtime_ms: f64, prefix: &[u8], path: &[u8]) {
    let size = format_size(size);
    for _ in size.len()..7 {
        out.push(b' ');
    }
    out.extend_from_slice(size.as_bytes());
    out.extend_from_slice(b"  ");
    out.extend_from_slice(iso_utc(mtime_ms).as_bytes());
    out.extend_from_slice(b"  ");
    out.extend_from_slice(prefix);
    out.extend_from_slice(path);
    out.push(b'\n');
}

/// One entry's record (`--json`): `{"path":…,"kind":…,"size":…,"mtimeMs":…}`.
pub(crate) fn json_record(out: &mut Vec<u8>, path: &str, kind: EntryKind, size: u64, mtime_ms: f64) {
    out.extend_from_slice(br#"{"path":"#);
    json::push_string(out, path);
    let _ = writeln!(out, r#","kind":"{}","size":{size},"mtimeMs":{}}}"#, kind.word(), js_number(mtime_ms));
}

/// Bytes in B, K, M, G or T, one decimal above B, as `value.toFixed(1)` rounds it: the exact
/// value, halves up (1280 bytes is 1.25K exactly, which JavaScript prints as 1.3K).
fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "K", "M", "G", "T"];
    let mut unit = 0;
    while unit < UNITS.len() - 1 && bytes >= 1u64 << (10 * (unit + 1)) {
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes}B");
    }
    let scale = 1u128 << (10 * unit);
    let tenths = (u128::from(bytes) * 10 + scale / 2) / scale;
    format!("{}.{}{}", tenths / 10, tenths % 10, UNITS[unit])
}

/// `new Date(ms).toISOString()`: whole milliseconds (truncated, as a Date keeps its time), UTC.
fn iso_utc(ms: f64) -> String {
    let ms = ms.trunc() as i64;
    let days = ms.div_euclid(86_400_000);
    let of_day = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let year = if (0..=9999).contains(&year) { format!("{year:04}") } else if year < 0 { format!("-{:06}", -year) } else { format!("+{year:06}") };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600_000,
        of_day / 60_000 % 60,
        of_day / 1000 % 60,
        of_day % 1000
    )
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A number as JavaScript prints it, for the magnitudes a modification time has: the shortest
/// digits that read back the same, without an exponent (Rust's `Display` for f64 does both), and
/// 0 for -0.
fn js_number(value: f64) -> String {
    if value == 0.0 {
        "0".to_string()
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_as_to_fixed_does() {
        let cases = [(0, "0B"), (1023, "1023B"), (1024, "1.0K"), (1280, "1.3K"), (1331, "1.3K"), (1792, "1.8K"), (1536, "1.5K"), (1_048_575, "1024.0K"), (1_572_864, "1.5M"), (5 << 40, "5.0T"), (3 << 50, "3072.0T")];
        for (bytes, want) in cases {
            assert_eq!(format_size(bytes), want, "{bytes}");
        }
    }

    #[test]
    fn dates_print_as_to_iso_string_does() {
        assert_eq!(iso_utc(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(1_764_158_400_123.9), "2025-11-26T12:00:00.123Z");
        assert_eq!(iso_utc(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_utc(-1.5), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_utc(-315_619_200_000.0), "1960-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(253_402_300_800_000.0), "+010000-01-01T00:00:00.000Z");
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        assert_eq!(js_number(1_764_158_400_123.456_8), "1764158400123.4568");
        assert_eq!(js_number(1_764_158_400_000.0), "1764158400000");
        assert_eq!(js_number(-0.0), "0");
    }
}
