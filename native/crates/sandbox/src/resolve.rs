//! Paths resolved as the kernel sees them, for matching grants, denied paths and sockets.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// What `path` resolves to (links followed), None when it does not exist. Read back from an open
/// handle: one open and one readlink, where realpath reads every component's link (about 200
/// readlinks a command for the usual rules). Without /proc, realpath it is.
pub fn canonical(path: &Path) -> Option<PathBuf> {
    let c_path = CString::new(path.as_os_str().as_bytes()).ok()?;
    let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}"));
    unsafe { libc::close(fd) };
    match link {
        // A name the kernel marks (" (deleted)", "(unreachable)…") is not a path to trust: realpath decides.
        Ok(real) if real.is_absolute() && !real.as_os_str().as_bytes().ends_with(b" (deleted)") => Some(real),
        _ => std::fs::canonicalize(path).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;
    use std::path::Path;

    #[test]
    fn resolves_links_like_realpath() {
        let dir = std::env::temp_dir().join(format!("omp-sandbox-resolve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real/inner")).unwrap();
        std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).unwrap();
        for path in [dir.join("link/inner"), dir.join("link/../real/./inner"), dir.join("real/inner")] {
            assert_eq!(canonical(&path), std::fs::canonicalize(&path).ok(), "{}", path.display());
        }
        assert_eq!(canonical(&dir.join("link/missing")), None);
        assert_eq!(canonical(Path::new("/")), Some(Path::new("/").to_path_buf()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
