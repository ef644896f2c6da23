//! Output order: `rg --sort path` walks the roots in the order given and each tree depth-first by
//! file name, which is the same as ordering by (root position, path compared component-wise).

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

pub(crate) struct RootOrder {
    roots: Vec<PathBuf>,
}

impl RootOrder {
    pub fn new(roots: &[PathBuf]) -> Self {
        Self { roots: roots.to_vec() }
    }

    /// Position of the root `path` was found under. The parallel walker does not say which root
    /// an entry came from, so this goes by prefix; with overlapping roots (`src` and `src/a`) an
    /// entry is attributed to the first one listed.
    pub fn index(&self, path: &Path) -> usize {
        if self.roots.len() == 1 {
            return 0;
        }
        self.roots.iter().position(|root| path.starts_with(root)).unwrap_or(self.roots.len())
    }
}

/// `Path`'s `Ord` compares component-wise, so `a/b` < `a-c` < `a.txt`, as ripgrep sorts them.
pub(crate) fn by_path(a: &str, b: &str) -> Ordering {
    Path::new(a).cmp(Path::new(b))
}
