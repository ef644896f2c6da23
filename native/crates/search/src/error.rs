//! User-facing messages for `SearchError` and the mapping of root-path I/O failures onto it.

use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

use crate::types::SearchError;

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::BadPattern { pattern, message } => {
                write!(f, "invalid pattern {:?}: {}", pattern, message)
            }
            SearchError::BadGlob { glob, message } => write!(f, "invalid glob {:?}: {}", glob, message),
            SearchError::UnknownType { name } => write!(f, "unrecognized file type: {}", name),
            SearchError::NotFound { path } => write!(f, "{}: No such file or directory", path.display()),
            SearchError::PermissionDenied { path } => write!(f, "{}: Permission denied", path.display()),
            SearchError::Io { path, message } => write!(f, "{}: {}", path.display(), message),
            SearchError::Cancelled => f.write_str("search cancelled"),
            SearchError::InvalidOptions { message } => write!(f, "invalid search options: {}", message),
        }
    }
}

impl std::error::Error for SearchError {}

/// Fails the way the caller needs to hear about a root it named: missing, unreadable or broken.
/// Problems below the root are not reported at all (ripgrep only warns about them).
pub(crate) fn check_root(path: &Path) -> Result<(), SearchError> {
    let meta = fs::metadata(path).map_err(|err| root_error(path, err))?;
    // Opening proves readability, which metadata alone does not (a mode-000 directory stats fine).
    // Only for directories and regular files: opening a FIFO would block until a writer comes.
    let opened = if meta.is_dir() {
        fs::read_dir(path).map(drop)
    } else if meta.is_file() {
        fs::File::open(path).map(drop)
    } else {
        Ok(())
    };
    opened.map_err(|err| root_error(path, err))
}

fn root_error(path: &Path, err: io::Error) -> SearchError {
    let path = path.to_path_buf();
    match err.kind() {
        io::ErrorKind::NotFound => SearchError::NotFound { path },
        io::ErrorKind::PermissionDenied => SearchError::PermissionDenied { path },
        _ => SearchError::Io { path, message: err.to_string() },
    }
}

/// Maps errors from building ignore's overrides (`-g`) and types (`-t`).
pub(crate) fn from_ignore(err: ignore::Error, glob: &str) -> SearchError {
    match err {
        ignore::Error::Glob { glob: original, err } => {
            SearchError::BadGlob { glob: original.unwrap_or_else(|| glob.to_string()), message: err }
        }
        ignore::Error::UnrecognizedFileType(name) => SearchError::UnknownType { name },
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => from_ignore(*err, glob),
        other => SearchError::InvalidOptions { message: other.to_string() },
    }
}
