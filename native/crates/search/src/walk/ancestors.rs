//! When a subtree walked on its own skips exactly what the whole walk would.
//!
//! A walk of a subtree sees the ignore files of the directories above it as the ignore crate's
//! "parents", and matches their patterns against the subtree's absolute path joined with each
//! entry's path as walked. That is the path itself when the walk's root is absolute and canonical;
//! for any other root (`./`, `src`, a path through a symlink) it is not, and a pattern with a `/`
//! in a parent's ignore file could match differently than in the whole walk. A pattern without
//! one matches the file name at any depth, whatever the path, so a subtree is handed off there
//! only when every ignore file above it has nothing else.

use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::lock;

/// The ignore files the walks read in a directory (see `walk::builder`), and git's excludes.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

pub(crate) enum SplitRule {
    Always,
    Checked(Mutex<Verdicts>),
}

impl SplitRule {
    pub fn for_root(root: &Path, respect_ignore: bool) -> Self {
        if !respect_ignore || is_canonical(root) {
            SplitRule::Always
        } else {
            SplitRule::Checked(Mutex::default())
        }
    }

    /// Whether the directory `dir` (a path as walked) may be walked on its own.
    pub fn allows(&self, dir: &Path) -> bool {
        match self {
            SplitRule::Always => true,
            SplitRule::Checked(verdicts) => dir.parent().map_or(false, |parent| lock(verdicts).allows(parent)),
        }
    }
}

#[derive(Default)]
pub(crate) struct Verdicts {
    /// By parent directory as walked: few distinct ones get asked about.
    walked: HashMap<PathBuf, bool>,
    /// By canonical directory, shared by the parents above which they lie.
    dirs: HashMap<PathBuf, bool>,
}

impl Verdicts {
    fn allows(&mut self, parent: &Path) -> bool {
        if let Some(&verdict) = self.walked.get(parent) {
            return verdict;
        }
        let verdict = match parent.canonicalize() {
            Ok(absolute) => absolute.ancestors().all(|dir| self.dir_allows(dir)),
            Err(_) => false,
        };
        self.walked.insert(parent.to_path_buf(), verdict);
        verdict
    }

    fn dir_allows(&mut self, dir: &Path) -> bool {
        if let Some(&verdict) = self.dirs.get(dir) {
            return verdict;
        }
        let verdict = names_only_in(dir);
        self.dirs.insert(dir.to_path_buf(), verdict);
        verdict
    }
}

fn names_only_in(dir: &Path) -> bool {
    if !IGNORE_FILES.iter().all(|name| names_only(&dir.join(name))) {
        return false;
    }
    let git = dir.join(".git");
    match fs::metadata(&git) {
        Ok(meta) if meta.is_dir() => names_only(&git.join("info").join("exclude")),
        // A worktree's `.git` file points to excludes elsewhere: not worth following.
        Ok(_) => false,
        Err(err) => err.kind() == ErrorKind::NotFound,
    }
}

/// True when the file is missing or every pattern in it is a bare name.
fn names_only(path: &Path) -> bool {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).lines().all(bare_name),
        Err(err) => err.kind() == ErrorKind::NotFound,
    }
}

/// A gitignore line that matches by file name alone: blank, a comment, or a pattern with no `/`
/// but a trailing one (which only restricts it to directories).
fn bare_name(line: &str) -> bool {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with('#') {
        return true;
    }
    let pattern = line.strip_prefix('!').unwrap_or(line);
    let pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    !pattern.contains('/')
}

/// Spelled exactly as its canonical form (but for trailing slashes).
fn is_canonical(root: &Path) -> bool {
    if !root.is_absolute() {
        return false;
    }
    match root.canonicalize() {
        Ok(canonical) => {
            let spelled = root.to_string_lossy();
            let trimmed = spelled.trim_end_matches('/');
            canonical.to_string_lossy() == if trimmed.is_empty() { "/" } else { trimmed }
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_names_match_alike_at_any_path() {
        for line in ["", "  ", "# a/b", "*.log", "node_modules/", "!keep.txt", "build  "] {
            assert!(bare_name(line), "{:?}", line);
        }
        for line in ["/dist", "src/gen", "!/keep", "**/tmp", "a/**"] {
            assert!(!bare_name(line), "{:?}", line);
        }
    }

    #[test]
    fn relative_roots_are_checked_and_canonical_ones_are_not() {
        let dir = std::env::temp_dir().canonicalize().unwrap();
        assert!(matches!(SplitRule::for_root(&dir, true), SplitRule::Always));
        assert!(matches!(SplitRule::for_root(Path::new("./"), true), SplitRule::Checked(_)));
        assert!(matches!(SplitRule::for_root(&dir.join("x/.."), true), SplitRule::Checked(_)));
        assert!(matches!(SplitRule::for_root(Path::new("./"), false), SplitRule::Always));
    }
}
