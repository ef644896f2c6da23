//! `buildStamp()`: the omp version this addon was built for. The JS loader compares it with its
//! own version to refuse a stale addon.
//!
//! The version lives in the file as `omp-natives-stamp:<version>\0` and is read back byte by byte
//! with volatile loads, so the value returned is what is in the loaded file, not a constant the
//! compiler folded in. Tests patch those bytes (same length) in a copy to fake a wrong version.

use std::ptr;

use omp_napi::{CallArgs, Result, Value};

macro_rules! stamp_prefix {
    () => {
        "omp-natives-stamp:"
    };
}

/// A length, not the prefix itself: that way the marker occurs once in the file, in `STAMP`.
const PREFIX_LEN: usize = stamp_prefix!().len();
/// `OMP_NATIVES_VERSION` comes from build.rs, which reads `OMP_VERSION`.
const STAMP_TEXT: &str = concat!(stamp_prefix!(), env!("OMP_NATIVES_VERSION"), "\0");

#[used]
static STAMP: [u8; STAMP_TEXT.len()] = to_array(STAMP_TEXT);

const fn to_array<const N: usize>(text: &str) -> [u8; N] {
    let bytes = text.as_bytes();
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// The stamp up to its NUL, as the loaded file has it.
fn read_stamp() -> Vec<u8> {
    let mut bytes = Vec::with_capacity(STAMP.len());
    for i in 0..STAMP.len() {
        // SAFETY: `i` is within `STAMP`, a static that lives for the whole program.
        let byte = unsafe { ptr::read_volatile(STAMP.as_ptr().add(i)) };
        if byte == 0 {
            break;
        }
        bytes.push(byte);
    }
    bytes
}

fn version_of(stamp: &[u8]) -> String {
    String::from_utf8_lossy(stamp.get(PREFIX_LEN..).unwrap_or_default()).into_owned()
}

pub fn build_stamp<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    args.env().string(&version_of(&read_stamp()))
}

#[cfg(test)]
mod tests {
    use super::{read_stamp, version_of, STAMP};

    #[test]
    fn stamp_is_prefix_version_nul() {
        assert_eq!(STAMP.last(), Some(&0));
        assert_eq!(version_of(&read_stamp()), env!("OMP_NATIVES_VERSION"));
    }

    #[test]
    fn patched_stamps_read_back() {
        assert_eq!(version_of(b"omp-natives-stamp:9.9.9"), "9.9.9");
        assert_eq!(version_of(b"short"), "");
    }
}
