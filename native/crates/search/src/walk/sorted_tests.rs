//! The parallel walk in path order must yield exactly what ignore's sequential sorted walk yields,
//! stop when its consumer does, and keep a bounded number of entries ahead of the consumer.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ignore::overrides::{Override, OverrideBuilder};

use super::{Limits, SortedWalk};
use crate::types::CancelToken;
use crate::walk::{builder, WalkOptions};

/// Splits as finely as the limits allow, so that every path through the code is taken.
const TINY: Limits = Limits { per_job: 2, chunks: 1, roots_per_chunk: 2 };

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A repository with ignore files at several levels, hidden entries, and patterns both by name
/// and by path.
fn repository(name: &str, path_patterns: bool) -> PathBuf {
    let root = std::env::temp_dir().join(format!("omp-sorted-{}-{}", name, std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(root.join(".git")).unwrap();
    let top = if path_patterns { "*.log\nbuild/\n/top-only.txt\nd2/anchored.txt\n" } else { "*.log\nbuild/\n" };
    write(&root.join(".gitignore"), top);
    write(&root.join(".ignore"), "by-dot-ignore\n");
    for name in ["a.txt", "top-only.txt", "z.txt", "x.log", ".hidden-file", ".hidden-dir/inside.txt", "build/out.txt"] {
        write(&root.join(name), "x");
    }
    for d in 0..12 {
        let dir = root.join(format!("d{}", d));
        for f in 0..5 {
            write(&dir.join(format!("f{}.txt", f)), "x");
        }
        write(&dir.join("by-dot-ignore"), "x");
        write(&dir.join("anchored.txt"), "x");
        write(&dir.join("inner/deeper/leaf.txt"), "x");
        write(&dir.join("inner/kept.log"), "x");
        write(&dir.join("inner/.rgignore"), "*.tmp\n");
        write(&dir.join("inner/a.tmp"), "x");
        write(&dir.join(".hidden"), "x");
    }
    // A nested ignore file that whitelists what the top one ignores.
    write(&root.join("d3/.gitignore"), "!*.log\n*.md\n");
    write(&root.join("d3/seen.log"), "x");
    write(&root.join("d3/README.md"), "x");
    write(&root.join("d-empty/.keep"), "");
    fs::create_dir_all(root.join("e-empty")).unwrap();
    root.canonicalize().unwrap()
}

fn options(hidden: bool) -> WalkOptions {
    WalkOptions { hidden, respect_ignore: true, threads: 2, skip_git_dir: false }
}

fn sequential(roots: &[PathBuf], opts: &WalkOptions, overrides: &Override) -> Vec<(PathBuf, usize)> {
    let mut walk = builder(roots, opts);
    walk.overrides(overrides.clone()).sort_by_file_name(|a, b| a.cmp(b));
    walk.build().filter_map(Result::ok).map(|dent| (dent.path().to_path_buf(), dent.depth())).collect()
}

/// Paths, with `depth() == 0` marked as the only depth the walk promises.
fn parallel(roots: &[PathBuf], opts: &WalkOptions, overrides: &Override, limits: Limits) -> Vec<(PathBuf, usize)> {
    let make = |roots: &[PathBuf]| {
        let mut walk = builder(roots, opts);
        walk.overrides(overrides.clone());
        walk
    };
    let mut seen = Vec::new();
    let walk = SortedWalk::new(roots.to_vec(), &make, opts.respect_ignore).helpers(2).limits(limits);
    assert!(walk.each(&CancelToken::new(), |dent| {
        seen.push((dent.path().to_path_buf(), dent.depth()));
        true
    }));
    seen
}

fn same_order(expected: &[(PathBuf, usize)], got: &[(PathBuf, usize)]) {
    let paths = |entries: &[(PathBuf, usize)]| entries.iter().map(|(path, _)| path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(got), paths(expected));
    let roots = |entries: &[(PathBuf, usize)]| entries.iter().filter(|(_, depth)| *depth == 0).count();
    assert_eq!(roots(got), roots(expected), "only named roots have depth 0");
}

#[test]
fn yields_the_sequential_walks_entries_in_its_order() {
    let root = repository("order", true);
    for hidden in [false, true] {
        let expected = sequential(&[root.clone()], &options(hidden), &Override::empty());
        assert!(expected.iter().any(|(p, _)| p.ends_with("d3/seen.log")), "the nested whitelist applies");
        assert!(!expected.iter().any(|(p, _)| p.ends_with("d2/anchored.txt")), "anchored patterns apply");
        for limits in [TINY, Limits::default()] {
            same_order(&expected, &parallel(&[root.clone()], &options(hidden), &Override::empty(), limits));
        }
    }
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn overrides_match_as_in_the_sequential_walk() {
    let root = repository("overrides", true);
    let mut globs = OverrideBuilder::new(&root);
    globs.add("*.txt").unwrap().add("!d1/**").unwrap().add("d5/inner/**").unwrap();
    let globs = globs.build().unwrap();
    let expected = sequential(&[root.clone()], &options(false), &globs);
    assert!(expected.iter().any(|(p, _)| p.ends_with("d5/inner/kept.log")));
    assert!(!expected.iter().any(|(p, _)| p.starts_with(root.join("d1/f0.txt"))));
    same_order(&expected, &parallel(&[root.clone()], &options(false), &globs, TINY));
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn roots_not_spelled_canonically_keep_exact_semantics() {
    // Through `..` the chunks' ancestors would be matched by another spelling of the path: with
    // patterns by path above them, nothing may be split off; with names alone, it may.
    for path_patterns in [true, false] {
        let root = repository(if path_patterns { "spelled-paths" } else { "spelled-names" }, path_patterns);
        let spelled = root.join("d0").join("..");
        let expected = sequential(&[spelled.clone()], &options(false), &Override::empty());
        same_order(&expected, &parallel(&[spelled], &options(false), &Override::empty(), TINY));
        let _ = fs::remove_dir_all(&root);
    }
}

#[test]
fn several_roots_and_file_roots_come_in_the_order_given() {
    let root = repository("roots", false);
    let roots = vec![root.join("d7"), root.join("a.txt"), root.join("d2"), root.clone()];
    let expected = sequential(&roots, &options(false), &Override::empty());
    same_order(&expected, &parallel(&roots, &options(false), &Override::empty(), TINY));
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn a_consumer_that_stops_stops_every_helper() {
    let root = repository("stop", false);
    let make = |roots: &[PathBuf]| builder(roots, &WalkOptions { hidden: true, respect_ignore: false, threads: 2, skip_git_dir: false });
    let walk = SortedWalk::new(vec![root.clone()], &make, true).helpers(2).limits(TINY);
    let (done, seen) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut count = 0;
            let finished = walk.each(&CancelToken::new(), |_| {
                count += 1;
                count < 5
            });
            done.send((finished, count)).unwrap();
        });
        // `each` returns only once every helper has: a hang here is a helper that did not stop.
        let (finished, count) = seen.recv_timeout(Duration::from_secs(10)).expect("the walk stops");
        assert!(!finished);
        assert_eq!(count, 5);
    });
    let _ = fs::remove_dir_all(&root);
}

#[test]
fn the_walk_stays_a_bounded_distance_ahead_of_a_slow_consumer() {
    let root = std::env::temp_dir().join(format!("omp-sorted-bounded-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    for d in 0..40 {
        for f in 0..50 {
            write(&root.join(format!("d{:02}/f{:02}", d, f)), "");
        }
    }
    let produced = Arc::new(AtomicUsize::new(0));
    let make = |roots: &[PathBuf]| builder(roots, &WalkOptions { hidden: true, respect_ignore: false, threads: 2, skip_git_dir: false });
    let counting = Arc::clone(&produced);
    let limits = Limits { per_job: 8, chunks: 2, roots_per_chunk: 4 };
    let walk = SortedWalk::new(vec![root.clone()], &make, true)
        .keep(Arc::new(move |_| {
            counting.fetch_add(1, Ordering::SeqCst);
            true
        }))
        .helpers(2)
        .limits(limits);
    let (mut consumed, mut furthest) = (0usize, 0usize);
    assert!(walk.each(&CancelToken::new(), |_| {
        consumed += 1;
        if consumed % 100 == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        furthest = furthest.max(produced.load(Ordering::SeqCst).saturating_sub(consumed));
        true
    }));
    assert_eq!(consumed, 1 + 40 * 51);
    // The lister, the chunks allowed to run ahead and the one the consumer runs or reads, each
    // holding its share and a directory's worth being looked at.
    let bound = (limits.chunks + 2) * (limits.per_job + 50 + limits.roots_per_chunk);
    assert!(furthest <= bound, "{} entries ahead of the consumer, bound {}", furthest, bound);
    let _ = fs::remove_dir_all(&root);
}
