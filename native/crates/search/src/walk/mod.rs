//! The ignore-aware parallel directory walk shared by grep, glob and fuzzy_find.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkParallel, WalkState};

use crate::types::{CancelToken, SearchError};

mod ancestors;
mod job;
pub(crate) mod sorted;

#[derive(Clone)]
pub(crate) struct WalkOptions {
    pub hidden: bool,
    pub respect_ignore: bool,
    pub threads: usize,
    /// glob and fuzzy_find never list repository internals; grep keeps ripgrep's behaviour, which
    /// searches `.git` when hidden files are on.
    pub skip_git_dir: bool,
}

/// A builder configured the way ripgrep configures its own (`rg` and `rg --no-ignore`).
pub(crate) fn builder(roots: &[PathBuf], opts: &WalkOptions) -> WalkBuilder {
    let mut builder = WalkBuilder::new(&roots[0]);
    for root in &roots[1..] {
        builder.add(root);
    }
    let ignore = opts.respect_ignore;
    builder
        .threads(thread_count(opts.threads))
        .follow_links(false)
        .hidden(!opts.hidden)
        .parents(ignore)
        .ignore(ignore)
        .git_global(ignore)
        .git_ignore(ignore)
        .git_exclude(ignore)
        .require_git(true);
    if ignore {
        builder.add_custom_ignore_filename(".rgignore");
    }
    if opts.skip_git_dir {
        builder.filter_entry(|dent| dent.file_name() != ".git");
    }
    builder
}

pub(crate) fn thread_count(requested: usize) -> usize {
    if requested > 0 {
        return requested;
    }
    // ignore's own default for 0 is a fixed 2 threads, so resolve it here.
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The root to walk for `root`: the working directory's canonical path for `.` or `./`, when it is
/// its own canonical path, so that the path-order walk may split it (see `ancestors`); walking it
/// so skips exactly what walking `./` does, as ignore matches `./`-relative paths against the
/// working directory's ignore files and rg's globs against the working directory. The caller
/// strips it from the paths it prints.
pub(crate) fn as_walked(root: &Path, respect_ignore: bool) -> PathBuf {
    let dot = root.as_os_str() == "." || root.as_os_str() == "./";
    if dot && respect_ignore {
        if let Ok(cwd) = std::env::current_dir() {
            if cwd.canonicalize().map_or(false, |canonical| canonical == cwd) {
                return cwd;
            }
        }
    }
    root.to_path_buf()
}

/// Threads that walk in path order besides the one consuming the walk.
pub(crate) fn sorted_helpers(threads: usize) -> usize {
    thread_count(threads)
}

/// Runs `walker` with one visitor per thread, each made by `make` and appending to its own vector;
/// returns everything the visitors produced, in no particular order. Walk errors below the roots
/// are skipped (ripgrep only warns). A visitor returning `WalkState::Quit` means it saw the
/// cancellation, as does the token tripping between entries; either way the walk stops and the
/// result is `Cancelled`.
pub(crate) fn collect<T, F, M>(walker: WalkParallel, cancel: &CancelToken, make: M) -> Result<Vec<T>, SearchError>
where
    T: Send,
    F: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send,
    M: FnMut() -> F,
{
    let out = Mutex::new(Vec::new());
    let cancelled = AtomicBool::new(false);
    walker.visit(&mut Builder { make, out: &out, cancel, cancelled: &cancelled });
    if cancelled.load(Ordering::SeqCst) {
        return Err(SearchError::Cancelled);
    }
    Ok(out.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

struct Builder<'a, T, M> {
    make: M,
    out: &'a Mutex<Vec<T>>,
    cancel: &'a CancelToken,
    cancelled: &'a AtomicBool,
}

impl<'s, 'a: 's, T, F, M> ParallelVisitorBuilder<'s> for Builder<'a, T, M>
where
    T: Send + 's,
    F: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send + 's,
    M: FnMut() -> F,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            visit: (self.make)(),
            local: Vec::new(),
            out: self.out,
            cancel: self.cancel,
            cancelled: self.cancelled,
        })
    }
}

struct Visitor<'a, T, F> {
    visit: F,
    /// Filled without locking; handed over once, when the walker drops its visitors.
    local: Vec<T>,
    out: &'a Mutex<Vec<T>>,
    cancel: &'a CancelToken,
    cancelled: &'a AtomicBool,
}

impl<'a, T, F> ParallelVisitor for Visitor<'a, T, F>
where
    T: Send,
    F: FnMut(DirEntry, &mut Vec<T>) -> WalkState + Send,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.is_cancelled() {
            self.cancelled.store(true, Ordering::SeqCst);
            return WalkState::Quit;
        }
        let dent = match entry {
            Ok(dent) => dent,
            Err(_) => return WalkState::Continue,
        };
        let state = (self.visit)(dent, &mut self.local);
        if matches!(state, WalkState::Quit) {
            self.cancelled.store(true, Ordering::SeqCst);
        }
        state
    }
}

impl<'a, T, F> Drop for Visitor<'a, T, F> {
    fn drop(&mut self) {
        if self.local.is_empty() {
            return;
        }
        let mut out = lock(self.out);
        out.append(&mut self.local);
    }
}

/// A lock whose holder panicking leaves nothing half-done that the others could trip on.
pub(crate) fn lock<S>(mutex: &Mutex<S>) -> MutexGuard<'_, S> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `path` relative to the walk root, `/`-separated whatever the platform; borrowed when it can be
/// so that callers filtering many entries allocate only for the ones they keep.
pub(crate) fn relative_slash<'p>(root: &Path, path: &'p Path) -> Cow<'p, str> {
    let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
    if cfg!(windows) && rel.contains('\\') {
        Cow::Owned(rel.replace('\\', "/"))
    } else {
        rel
    }
}

#[cfg(test)]
mod tests {
    use super::as_walked;
    use std::path::Path;

    #[test]
    fn only_the_working_directory_is_walked_by_its_canonical_path() {
        let cwd = std::env::current_dir().unwrap();
        let canonical = cwd.canonicalize().unwrap() == cwd;
        for dot in [".", "./"] {
            let walked = as_walked(Path::new(dot), true);
            assert_eq!(walked, if canonical { cwd.clone() } else { Path::new(dot).to_path_buf() });
            // Without ignore files there is nothing to split off with care: the root stays.
            assert_eq!(as_walked(Path::new(dot), false), Path::new(dot));
        }
        for other in ["src", "./src", "..", "/"] {
            assert_eq!(as_walked(Path::new(other), true), Path::new(other));
        }
    }
}
