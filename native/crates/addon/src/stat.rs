//! `changedPaths(paths, expected): Promise<Buffer>`: which of many files' stat data moved, looked
//! at on a worker thread. A checkpoint compares every file of a work tree after each command
//! (core/session/checkpoints/work-tree-stat.ts); on the JS thread those thousand syscalls and
//! comparisons held up the reply to the next request, here they run beside it.
//! `changedPathsSync(paths, expected): Buffer` is the same look on the calling thread, for what
//! must be settled at once (a file tool's write, a rewind, exit) before the worker has answered.
//!
//! `paths` is one string, the paths joined by NUL; `expected` five little-endian f64s per path, as
//! git keeps stat data: mode (644 or 755 for a regular file; negative: always look), inode and
//! size cut to 32 bits, change and modification time in milliseconds. The answer: the indexes, as
//! little-endian u32s, of the paths whose stat data (a final symlink not followed) differs, or
//! that hold nothing or cannot be read.

use std::ffi::CString;

use omp_napi::{CallArgs, NapiError, Result, Value, INVALID_ARGUMENT};

const FIELDS: usize = 5;
/// Times this close are one (a double's rounding of the nanoseconds), as work-tree-stat.ts has it.
const SAME_TIME_MS: f64 = 0.001;

fn millis(seconds: i64, nanos: i64) -> f64 {
    seconds as f64 * 1000.0 + nanos as f64 / 1e6
}

/// git's mode for stat data: a regular file is 644 or 755 by its owner's execute bit.
fn git_mode(mode: u32) -> u32 {
    let kind = mode & 0o170000;
    if kind == 0o100000 {
        return if mode & 0o100 != 0 { 0o100755 } else { 0o100644 };
    }
    kind
}

/// The folder a run of paths is in, open: each of its files is looked at by name, not resolved
/// from the root again (the paths come in index order, a folder's files together).
struct Folder {
    path: String,
    fd: libc::c_int,
}

impl Folder {
    fn open(path: &str) -> Self {
        let fd = CString::new(path).map_or(-1, |c| unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) });
        Self { path: path.to_owned(), fd }
    }

    /// The stat data of `name` in this folder, a symlink itself rather than what it points to.
    fn stat(&self, name: &str) -> Option<libc::stat> {
        let name = CString::new(name).ok()?;
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        (self.fd >= 0 && unsafe { libc::fstatat(self.fd, name.as_ptr(), &mut stat, libc::AT_SYMLINK_NOFOLLOW) } == 0).then_some(stat)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        if self.fd >= 0 {
            unsafe { libc::close(self.fd) };
        }
    }
}

fn unchanged(stat: Option<libc::stat>, want: &[f64]) -> bool {
    let Some(stat) = stat else { return false };
    want[0] >= 0.0
        && git_mode(stat.st_mode) as f64 == want[0]
        && (stat.st_ino % 0x1_0000_0000) as f64 == want[1]
        && (stat.st_size as u64 % 0x1_0000_0000) as f64 == want[2]
        && (millis(stat.st_ctime, stat.st_ctime_nsec) - want[3]).abs() <= SAME_TIME_MS
        && (millis(stat.st_mtime, stat.st_mtime_nsec) - want[4]).abs() <= SAME_TIME_MS
}

fn changed(paths: &str, expected: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut want = [0f64; FIELDS];
    let mut folder: Option<Folder> = None;
    for (index, (path, fields)) in paths.split('\0').zip(expected.chunks_exact(FIELDS * 8)).enumerate() {
        for (slot, bytes) in want.iter_mut().zip(fields.chunks_exact(8)) {
            *slot = f64::from_le_bytes(bytes.try_into().unwrap());
        }
        let stat = match path.rsplit_once('/') {
            Some((dir, name)) if want[0] >= 0.0 && !dir.is_empty() && !name.is_empty() => {
                if folder.as_ref().map_or(true, |open| open.path != dir) {
                    folder = Some(Folder::open(dir));
                }
                folder.as_ref().and_then(|open| open.stat(name))
            }
            _ => None,
        };
        if !unchanged(stat, &want) {
            out.extend_from_slice(&(index as u32).to_le_bytes());
        }
    }
    out
}

/// The two arguments, checked to describe the same number of paths.
fn arguments(args: &CallArgs<'_>) -> Result<(String, Vec<u8>)> {
    let paths: String = args.arg(0)?.convert("paths")?;
    let expected = args.arg(1)?.buffer_bytes("expected")?;
    let count = if paths.is_empty() { 0 } else { paths.split('\0').count() };
    if expected.len() != count * FIELDS * 8 {
        return Err(NapiError::new(INVALID_ARGUMENT, format!("expected: {} bytes for {count} paths, want {}", expected.len(), count * FIELDS * 8)));
    }
    Ok((paths, expected))
}

pub fn changed_paths<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let (paths, expected) = arguments(args)?;
    args.env().spawn_promise(move || Ok(changed(&paths, &expected)), |env, bytes: Vec<u8>| env.buffer(&bytes))
}

pub fn changed_paths_sync<'e>(args: &CallArgs<'e>) -> Result<Value<'e>> {
    let (paths, expected) = arguments(args)?;
    args.env().buffer(&changed(&paths, &expected))
}
