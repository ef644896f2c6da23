//! Behaviour of `grep` option by option, on small trees.

mod common;

use std::time::{Duration, Instant};

use common::{render, search, Tree};
use omp_search::{CancelToken, GrepMode, GrepOptions, LineKind, SearchError};

fn paths(opts: &GrepOptions, t: &Tree) -> Vec<String> {
    search(opts).files.iter().map(|f| t.rel(&f.path)).collect()
}

#[test]
fn gitignore_applies_only_inside_a_repository_and_only_when_asked() {
    let t = Tree::new("gitignore");
    t.file(".gitignore", "skip/\n*.log\n").file("skip/a.txt", "hit\n").file("x.log", "hit\n").file("keep.txt", "hit\n");
    // No `.git`: ripgrep (require_git) does not read .gitignore.
    assert_eq!(paths(&t.grep("hit"), &t), ["keep.txt", "skip/a.txt", "x.log"]);
    t.dir(".git");
    assert_eq!(paths(&t.grep("hit"), &t), ["keep.txt"]);
    let mut opts = t.grep("hit");
    opts.respect_ignore = false;
    assert_eq!(paths(&opts, &t), ["keep.txt", "skip/a.txt", "x.log"]);
}

#[test]
fn dot_ignore_files_apply_without_a_repository() {
    let t = Tree::new("dotignore");
    t.file(".ignore", "a.txt\n")
        .file(".rgignore", "b.txt\n")
        .file("a.txt", "hit\n")
        .file("b.txt", "hit\n")
        .file("c.txt", "hit\n");
    assert_eq!(paths(&t.grep("hit"), &t), ["c.txt"]);
}

#[test]
fn hidden_files_need_the_switch() {
    let t = Tree::new("hidden");
    t.file(".secret", "hit\n").file(".dir/a.txt", "hit\n").file("shown.txt", "hit\n");
    assert_eq!(paths(&t.grep("hit"), &t), ["shown.txt"]);
    let mut opts = t.grep("hit");
    opts.hidden = true;
    assert_eq!(paths(&opts, &t), [".dir/a.txt", ".secret", "shown.txt"]);
}

#[test]
fn globs_select_and_negate_with_later_globs_winning() {
    let t = Tree::new("globs");
    t.file("a.rs", "hit\n").file("b.ts", "hit\n").file("sub/c.rs", "hit\n").file("sub/d.md", "hit\n");
    let mut opts = t.grep("hit");
    opts.globs = vec!["*.rs".into()];
    assert_eq!(paths(&opts, &t), ["a.rs", "sub/c.rs"]);
    opts.globs = vec!["!*.rs".into()];
    assert_eq!(paths(&opts, &t), ["b.ts", "sub/d.md"]);
    opts.globs = vec!["*.rs".into(), "!c.rs".into()];
    assert_eq!(paths(&opts, &t), ["a.rs"]);
    opts.globs = vec!["!sub".into()];
    assert_eq!(paths(&opts, &t), ["a.rs", "b.ts"]);
}

#[test]
fn types_filter_by_ripgrep_type_names() {
    let t = Tree::new("types");
    t.file("a.rs", "hit\n").file("b.py", "hit\n").file("c.md", "hit\n");
    let mut opts = t.grep("hit");
    opts.types = vec!["rust".into(), "py".into()];
    assert_eq!(paths(&opts, &t), ["a.rs", "b.py"]);
    opts.types = vec!["nosuchtype".into()];
    let err = omp_search::grep(&opts, &CancelToken::new()).unwrap_err();
    assert_eq!(err, SearchError::UnknownType { name: "nosuchtype".into() });
}

#[test]
fn case_handling() {
    let t = Tree::new("case");
    t.file("a.txt", "Hello\nhello\nHELLO\n");
    let lines = |opts: &GrepOptions| -> Vec<u64> {
        search(opts).files.iter().flat_map(|f| f.lines.iter().map(|l| l.line_number)).collect()
    };
    let mut opts = t.grep("hello");
    assert_eq!(lines(&opts), [2]);
    opts.ignore_case = true;
    assert_eq!(lines(&opts), [1, 2, 3]);
    opts.ignore_case = false;
    opts.smart_case = true;
    assert_eq!(lines(&opts), [1, 2, 3], "all-lowercase pattern is case-insensitive");
    opts.pattern = "Hello".into();
    assert_eq!(lines(&opts), [1], "an uppercase letter makes it case-sensitive");
    opts.pattern = r"\Hello".into();
    assert!(omp_search::grep(&opts, &CancelToken::new()).is_err());
    opts.pattern = r"\w+LLO".into();
    assert_eq!(lines(&opts), [3]);
    opts.ignore_case = true;
    opts.pattern = "Hello".into();
    assert_eq!(lines(&opts), [1, 2, 3], "ignore_case wins over smart_case");
}

#[test]
fn fixed_strings_escape_regex_syntax() {
    let t = Tree::new("fixed");
    t.file("a.txt", "a.b*(c)[d]\naxb*(c)[d]\n$^\\\n");
    let mut opts = t.grep("a.b*(c)[d]");
    opts.fixed_strings = true;
    let r = search(&opts);
    assert_eq!(r.total_matches, 1);
    assert_eq!(r.files[0].lines[0].text, "a.b*(c)[d]");
    opts.pattern = "$^\\".into();
    assert_eq!(search(&opts).files[0].lines[0].line_number, 3);
}

#[test]
fn multiline_matches_report_every_line_they_touch() {
    let t = Tree::new("multiline");
    t.file("a.txt", "fn a(\n  x,\n) {}\nfn b() {}\n");
    let mut opts = t.grep(r"fn a\(\n[^)]*\)");
    let err = omp_search::grep(&opts, &CancelToken::new()).unwrap_err();
    assert!(matches!(err, SearchError::BadPattern { .. }), "a literal \\n needs multiline");
    opts.multiline = true;
    let r = search(&opts);
    let got: Vec<(u64, &str, LineKind)> =
        r.files[0].lines.iter().map(|l| (l.line_number, l.text.as_str(), l.kind)).collect();
    assert_eq!(got, [(1, "fn a(", LineKind::Match), (2, "  x,", LineKind::Match), (3, ") {}", LineKind::Match)]);
    assert_eq!(r.total_matches, 1);
    opts.mode = GrepMode::Count;
    assert_eq!(search(&opts).files[0].match_count, 1);
}

#[test]
fn context_lines_are_emitted_once_with_their_kind() {
    let t = Tree::new("context");
    t.file("a.txt", "1\nhit\n3\n4\nhit\n6\n7\n8\n9\nhit\n");
    let mut opts = t.grep("hit");
    opts.context_before = 1;
    opts.context_after = 2;
    let r = search(&opts);
    let got: Vec<(u64, LineKind)> = r.files[0].lines.iter().map(|l| (l.line_number, l.kind)).collect();
    use LineKind::{Context as C, Match as M};
    assert_eq!(got, [(1, C), (2, M), (3, C), (4, C), (5, M), (6, C), (7, C), (9, C), (10, M)]);
    assert_eq!(r.total_matches, 3);
}

#[test]
fn max_count_stops_after_the_limit_but_keeps_its_context() {
    let t = Tree::new("maxcount");
    t.file("a.txt", "hit\nhit\nhit\nx\nhit\n").file("b.txt", "hit\n");
    let mut opts = t.grep("hit");
    opts.max_count = Some(2);
    let r = search(&opts);
    assert_eq!(r.files[0].match_count, 2);
    assert_eq!(r.files[0].lines.len(), 2);
    assert_eq!(r.total_matches, 3);
    opts.max_count = Some(1);
    opts.context_after = 1;
    let r = search(&opts);
    // As rg: the second line is a match inside the first one's after-context, printed as a match.
    let got: Vec<(u64, LineKind)> = r.files[0].lines.iter().map(|l| (l.line_number, l.kind)).collect();
    assert_eq!(got, [(1, LineKind::Match), (2, LineKind::Match)]);
    assert_eq!(r.files[0].match_count, 1);
}

#[test]
fn multiline_max_count_reports_its_after_context_once() {
    // rg 13 prints line 3 twice here; the contract is one entry per line, in line order.
    let t = Tree::new("multiline-max");
    t.file("a.txt", "one\nfoo two\nthree\nfoo\n");
    let mut opts = t.grep("foo\\nbar|foo");
    opts.multiline = true;
    opts.max_count = Some(1);
    opts.context_after = 1;
    let r = search(&opts);
    let got: Vec<(u64, LineKind)> = r.files[0].lines.iter().map(|l| (l.line_number, l.kind)).collect();
    assert_eq!(got, [(2, LineKind::Match), (3, LineKind::Context)]);
}

#[test]
fn paging_applies_to_sorted_matches_with_totals_before_paging() {
    let t = Tree::new("paging");
    t.file("a.txt", "hit 1\nhit 2\nhit 3\n").file("b.txt", "hit 4\nhit 5\n");
    let mut opts = t.grep("hit");
    opts.offset = 2;
    opts.limit = Some(2);
    let r = search(&opts);
    let texts: Vec<&str> = r.files.iter().flat_map(|f| f.lines.iter().map(|l| l.text.as_str())).collect();
    assert_eq!(texts, ["hit 3", "hit 4"]);
    assert_eq!((r.total_matches, r.files_with_matches, r.limit_reached), (5, 2, true));
    opts.offset = 3;
    assert!(!search(&opts).limit_reached);
    opts.offset = 10;
    assert!(search(&opts).files.is_empty());

    opts.mode = GrepMode::FilesWithMatches;
    opts.offset = 1;
    opts.limit = Some(5);
    let r = search(&opts);
    assert_eq!(r.files.len(), 1);
    assert_eq!(t.rel(&r.files[0].path), "b.txt");
    assert!(!r.limit_reached);
}

#[test]
fn paging_never_splits_a_multiline_match() {
    let t = Tree::new("paging-multiline");
    t.file("a.txt", "a\nb\nx\na\nb\n");
    let mut opts = t.grep("a\\nb");
    opts.multiline = true;
    opts.offset = 1;
    opts.limit = Some(1);
    let r = search(&opts);
    let got: Vec<u64> = r.files[0].lines.iter().map(|l| l.line_number).collect();
    assert_eq!(got, [4, 5]);
    assert_eq!((r.total_matches, r.limit_reached), (2, false));
}

#[test]
fn paging_keeps_the_context_of_the_selected_matches() {
    let t = Tree::new("paging-context");
    t.file("a.txt", "c1\nhit a\nc3\nhit b\nc5\n");
    let mut opts = t.grep("hit");
    opts.context_before = 1;
    opts.context_after = 1;
    opts.offset = 1;
    opts.limit = Some(1);
    let r = search(&opts);
    let got: Vec<(u64, LineKind)> = r.files[0].lines.iter().map(|l| (l.line_number, l.kind)).collect();
    assert_eq!(got, [(3, LineKind::Context), (4, LineKind::Match), (5, LineKind::Context)]);
}

#[test]
fn max_columns_replaces_long_lines_with_rg_placeholders() {
    let t = Tree::new("columns");
    t.file("a.txt", format!("{}\nhit\nhit {}\n", "c".repeat(30), "x".repeat(30)));
    let mut opts = t.grep("hit");
    opts.max_columns = Some(10);
    opts.context_before = 1;
    let r = search(&opts);
    let got: Vec<(&str, bool)> = r.files[0].lines.iter().map(|l| (l.text.as_str(), l.truncated)).collect();
    assert_eq!(got, [("[Omitted long context line]", true), ("hit", false), ("[Omitted long matching line]", true)]);
}

#[test]
fn count_and_files_modes() {
    let t = Tree::new("modes");
    t.file("a.txt", "hit\nhit hit\nno\n").file("b.txt", "hit\n").file("c.txt", "no\n");
    let mut opts = t.grep("hit");
    opts.mode = GrepMode::Count;
    let r = search(&opts);
    let counts: Vec<(String, u64)> = r.files.iter().map(|f| (t.rel(&f.path), f.match_count)).collect();
    assert_eq!(counts, [("a.txt".to_string(), 2), ("b.txt".to_string(), 1)]);
    assert!(r.files.iter().all(|f| f.lines.is_empty()));
    assert_eq!((r.total_matches, r.files_searched), (3, 3));
    opts.mode = GrepMode::FilesWithMatches;
    assert_eq!(paths(&opts, &t), ["a.txt", "b.txt"]);
}

#[test]
fn binary_files_are_skipped_and_counted() {
    let t = Tree::new("binary");
    t.file("bin.dat", b"hit\x00\x01\x02hit\n").file("text.txt", "hit\n");
    let r = search(&t.grep("hit"));
    assert_eq!(r.files.len(), 1);
    assert_eq!(t.rel(&r.files[0].path), "text.txt");
    assert_eq!((r.binary_skipped, r.files_searched), (1, 2));

    // Named explicitly: rg still counts the matches of a binary file in -c and -l modes.
    let mut opts = t.grep("hit");
    opts.paths = vec![t.path("bin.dat")];
    opts.mode = GrepMode::Count;
    assert_eq!(search(&opts).files[0].match_count, 1);
    opts.mode = GrepMode::Content;
    assert_eq!(search(&opts).binary_skipped, 1);
}

#[test]
fn unicode_and_invalid_utf8_and_crlf() {
    let t = Tree::new("unicode");
    t.file("u.txt", "Σίσυφος ÉCOLE\nnaïve\r\n").file("bad.txt", b"caf\xe9 na\xefve\n");
    let mut opts = t.grep("σίσυφος école");
    opts.ignore_case = true;
    assert_eq!(search(&opts).files[0].lines[0].text, "Σίσυφος ÉCOLE");
    opts.pattern = "naïve".into();
    assert_eq!(search(&opts).files[0].lines[0].text, "naïve\r", "like rg, only the \\n is stripped");
    opts.pattern = "caf".into();
    assert_eq!(search(&opts).files[0].lines[0].text, "caf\u{fffd} na\u{fffd}ve");
}

#[test]
fn files_sort_component_wise_like_rg_sort_path() {
    let t = Tree::new("sort");
    for name in ["a.txt", "a-c", "a/b", "a/a/z", "B", "a0", "_x"] {
        t.file(name, "hit\n");
    }
    assert_eq!(paths(&t.grep("hit"), &t), ["B", "_x", "a/a/z", "a/b", "a-c", "a.txt", "a0"]);
}

#[test]
fn errors_say_what_went_wrong() {
    let t = Tree::new("errors");
    t.file("a.txt", "x\n");
    let run = |opts: &GrepOptions| omp_search::grep(opts, &CancelToken::new()).unwrap_err();

    match run(&t.grep("foo(")) {
        SearchError::BadPattern { pattern, message } => {
            assert_eq!(pattern, "foo(");
            assert!(message.contains("unclosed group"), "{}", message);
        }
        other => panic!("{:?}", other),
    }
    match run(&t.grep("a\\nb")) {
        SearchError::BadPattern { message, .. } => assert!(message.contains("not allowed"), "{}", message),
        other => panic!("{:?}", other),
    }
    let mut opts = t.grep("x");
    opts.paths = vec![t.path("missing")];
    let err = run(&opts);
    assert_eq!(err, SearchError::NotFound { path: t.path("missing") });
    assert!(err.to_string().contains("missing: No such file or directory"));

    let mut opts = t.grep("x");
    opts.globs = vec!["a[".into()];
    assert!(matches!(run(&opts), SearchError::BadGlob { glob, .. } if glob == "a["));
}

#[cfg(unix)]
#[test]
fn an_unreadable_root_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let t = Tree::new("perm");
    t.file("locked/a.txt", "hit\n");
    let locked = t.path("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::read_dir(&locked).is_ok();
    let outcome = omp_search::grep(&t.grep("hit"), &CancelToken::new());
    let mut opts = t.grep("hit");
    opts.paths = vec![locked.clone()];
    let direct = omp_search::grep(&opts, &CancelToken::new());
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    if readable_anyway {
        eprintln!("note: running as root, permissions are not enforced; skipping");
        return;
    }
    // Below the root an unreadable directory is skipped, as rg skips it (with a warning).
    assert_eq!(outcome.unwrap().files.len(), 0);
    assert_eq!(direct, Err(SearchError::PermissionDenied { path: locked }));
}

#[test]
fn cancellation_stops_the_search() {
    let t = Tree::new("cancel");
    t.file("a.txt", "hit\n");
    let cancel = CancelToken::new();
    cancel.cancel();
    assert_eq!(omp_search::grep(&t.grep("hit"), &cancel), Err(SearchError::Cancelled));
    let expired = CancelToken::with_deadline(Instant::now() - Duration::from_millis(1));
    assert_eq!(omp_search::grep(&t.grep("hit"), &expired), Err(SearchError::Cancelled));
}

#[test]
fn cancelling_mid_walk_quits_the_walk() {
    let t = Tree::new("cancel-mid");
    for i in 0..400 {
        t.file(&format!("d{}/f{}.txt", i % 20, i), "hit\n");
    }
    let cancel = CancelToken::new();
    let trip = cancel.clone();
    let canceller = std::thread::spawn(move || trip.cancel());
    let outcome = omp_search::grep(&t.grep("hit"), &cancel);
    canceller.join().unwrap();
    // Depending on timing the walk may finish first; if not, it must report the cancellation.
    if let Err(err) = outcome {
        assert_eq!(err, SearchError::Cancelled);
    }
    assert_eq!(omp_search::grep(&t.grep("hit"), &cancel), Err(SearchError::Cancelled));
}

#[test]
fn render_helper_prints_separators_between_groups_and_files() {
    let t = Tree::new("render");
    t.file("a.txt", "hit\nx\ny\nz\nhit\n").file("b.txt", "hit\n");
    let mut opts = t.grep("hit");
    opts.context_after = 1;
    assert_eq!(t.rel(&render(&search(&opts), &opts)), "a.txt:1:hit\na.txt-2-x\n--\na.txt:5:hit\n--\nb.txt:1:hit\n");
}
