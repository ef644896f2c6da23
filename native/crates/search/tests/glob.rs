//! Behaviour of `glob`.

mod common;

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use common::Tree;
use omp_search::{CancelToken, EntryKind, GlobOptions, GlobResult, SearchError};

fn list(t: &Tree, patterns: &[&str], configure: impl Fn(&mut GlobOptions)) -> GlobResult {
    let mut opts = GlobOptions {
        patterns: patterns.iter().map(|p| p.to_string()).collect(),
        root: t.root.clone(),
        ..GlobOptions::default()
    };
    configure(&mut opts);
    omp_search::glob(&opts, &CancelToken::new()).unwrap()
}

fn names(result: &GlobResult) -> Vec<&str> {
    result.entries.iter().map(|e| e.path.as_str()).collect()
}

fn tree() -> Tree {
    let t = Tree::new("glob");
    t.dir(".git")
        .file(".git/config", "")
        .file(".gitignore", "target/\n")
        .file("target/out.rs", "")
        .file(".hidden.rs", "")
        .file("src/main.rs", "fn main() {}\n")
        .file("src/util/mod.rs", "")
        .file("src/util/notes.md", "")
        .file("README.md", "")
        .file("a-c.rs", "")
        .file("a/b.rs", "");
    t
}

#[test]
fn name_patterns_match_at_any_depth_and_path_patterns_match_the_path() {
    let t = tree();
    assert_eq!(names(&list(&t, &["*.rs"], |_| {})), ["a/b.rs", "a-c.rs", "src/main.rs", "src/util/mod.rs"]);
    assert_eq!(names(&list(&t, &["src/*.rs"], |_| {})), ["src/main.rs"]);
    assert_eq!(names(&list(&t, &["src/**/*.rs"], |_| {})), ["src/main.rs", "src/util/mod.rs"]);
    assert_eq!(names(&list(&t, &["*.rs", "!mod.rs"], |_| {})), ["a/b.rs", "a-c.rs", "src/main.rs"]);
    assert_eq!(names(&list(&t, &["*.rs", "!src/util"], |_| {})), ["a/b.rs", "a-c.rs", "src/main.rs"]);
    let only_negated = list(&t, &["!*.rs"], |o| o.kinds = vec![EntryKind::File]);
    assert_eq!(names(&only_negated), ["README.md", "src/util/notes.md"]);
}

#[test]
fn ignore_and_hidden_rules_apply_and_dot_git_is_never_listed() {
    let t = tree();
    assert!(!names(&list(&t, &[], |_| {})).iter().any(|p| p.starts_with("target") || p.starts_with('.')));
    let all = list(&t, &[], |o| {
        o.hidden = true;
        o.respect_ignore = false;
    });
    let all = names(&all);
    assert!(all.contains(&"target/out.rs") && all.contains(&".hidden.rs") && all.contains(&".gitignore"));
    assert!(!all.iter().any(|p| p.starts_with(".git/") || *p == ".git"));
}

#[test]
fn kinds_sizes_and_symlinks() {
    let t = tree();
    let dirs = list(&t, &[], |o| o.kinds = vec![EntryKind::Dir]);
    assert_eq!(names(&dirs), ["a", "src", "src/util"]);
    let main = list(&t, &["main.rs"], |_| {});
    assert_eq!(main.entries[0].kind, EntryKind::File);
    assert_eq!(main.entries[0].size, 13);
    assert!(main.entries[0].mtime_ms > 1.0e12);

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(t.path("src"), t.path("link")).unwrap();
        let links = list(&t, &[], |o| o.kinds = vec![EntryKind::Symlink]);
        assert_eq!(names(&links), ["link"]);
        assert_eq!(links.entries[0].kind, EntryKind::Symlink);
        // Not followed: nothing is listed through the link.
        assert!(!names(&list(&t, &[], |_| {})).iter().any(|p| p.starts_with("link/")));
    }
}

#[test]
fn newest_first_and_max_results() {
    let t = Tree::new("glob-mtime");
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
    for (name, age) in [("old.txt", 300), ("new.txt", 0), ("mid.txt", 100), ("same.txt", 100)] {
        t.file(name, "");
        // `touch` rather than File::set_modified, which is newer than the crate's rust-version.
        let stamp = format!("@{}", now - age);
        let status = Command::new("touch").args(["-m", "-d", &stamp]).arg(t.path(name)).status().unwrap();
        assert!(status.success());
    }
    let newest = list(&t, &["*.txt"], |o| o.newest_first = true);
    assert_eq!(names(&newest), ["new.txt", "mid.txt", "same.txt", "old.txt"]);
    let capped = list(&t, &["*.txt"], |o| o.max_results = Some(2));
    assert_eq!(names(&capped), ["mid.txt", "new.txt"]);
    assert_eq!((capped.total_matches, capped.limit_reached), (4, true));
    let exact = list(&t, &["*.txt"], |o| o.max_results = Some(4));
    assert!(!exact.limit_reached);
}

#[test]
fn errors_and_cancellation() {
    let t = tree();
    let mut opts = GlobOptions { root: t.path("nope"), ..GlobOptions::default() };
    assert_eq!(omp_search::glob(&opts, &CancelToken::new()), Err(SearchError::NotFound { path: t.path("nope") }));
    opts.root = t.root.clone();
    opts.patterns = vec!["src/[".into()];
    assert!(
        matches!(omp_search::glob(&opts, &CancelToken::new()), Err(SearchError::BadGlob { glob, .. }) if glob == "src/[")
    );
    opts.patterns = vec![];
    let cancel = CancelToken::new();
    cancel.cancel();
    assert_eq!(omp_search::glob(&opts, &cancel), Err(SearchError::Cancelled));
}
