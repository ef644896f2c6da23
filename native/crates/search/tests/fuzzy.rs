//! Ranking of `fuzzy_find`.

mod common;

use common::Tree;
use omp_search::{CancelToken, FuzzyOptions, FuzzyResult, SearchError};

fn find(t: &Tree, query: &str) -> FuzzyResult {
    let opts = FuzzyOptions { root: t.root.clone(), ..FuzzyOptions::default() };
    omp_search::fuzzy_find(query, &opts, &CancelToken::new()).unwrap()
}

fn ranked(t: &Tree, query: &str) -> Vec<String> {
    find(t, query).matches.into_iter().map(|m| m.path).collect()
}

fn project() -> Tree {
    let t = Tree::new("fuzzy");
    for path in [
        "src/main.ts",
        "src/domain/maintenance/test.ts",
        "src/domain/main/index.ts",
        "src/mainframe.ts",
        "cli/grep.ts",
        "cli/args.ts",
        "src/cli/commands/grep-helper.ts",
        "src/client/grep/index.ts",
        "docs/clients.md",
        "src/utils/fileNameHelper.ts",
        "packages/app/src/components/UserProfile.tsx",
        "README.md",
    ] {
        t.file(path, "");
    }
    t.dir(".git").file(".git/HEAD", "").file(".gitignore", "dist/\n").file("dist/main.ts", "");
    t
}

#[test]
fn file_name_matches_beat_scattered_ones() {
    let t = project();
    let main = ranked(&t, "main.ts");
    assert_eq!(main[0], "src/main.ts");
    let pos = |p: &str| main.iter().position(|m| m == p).unwrap();
    assert!(pos("src/main.ts") < pos("src/domain/maintenance/test.ts"));
    assert!(pos("src/mainframe.ts") < pos("src/domain/maintenance/test.ts"));
    assert!(!main.iter().any(|p| p.starts_with("dist/")), "gitignored paths are left out");
}

#[test]
fn space_separated_terms_must_all_match() {
    let t = project();
    let hits = ranked(&t, "cli grep");
    assert_eq!(hits[0], "cli/grep.ts");
    assert!(hits.iter().all(|p| p.contains('c') && p.contains('g')));
    assert!(!hits.contains(&"cli/args.ts".to_string()));
}

#[test]
fn word_starts_and_camel_humps_count() {
    let t = project();
    assert_eq!(ranked(&t, "fnh")[0], "src/utils/fileNameHelper.ts");
    assert_eq!(ranked(&t, "userprof")[0], "packages/app/src/components/UserProfile.tsx");
}

#[test]
fn smart_case() {
    let t = project();
    assert!(ranked(&t, "readme").contains(&"README.md".to_string()));
    assert!(ranked(&t, "Readme").is_empty());
    assert_eq!(ranked(&t, "README"), ["README.md"]);
}

#[test]
fn directories_are_candidates_too() {
    let t = project();
    let result = find(&t, "maintenance");
    assert_eq!(result.matches[0].path, "src/domain/maintenance");
    assert!(result.matches[0].is_dir);
    assert!(!result.matches.iter().any(|m| m.path.starts_with(".git")));
}

#[test]
fn empty_query_lists_shallow_paths_first_and_respects_max_results() {
    let t = project();
    let opts = FuzzyOptions { root: t.root.clone(), max_results: 4, ..FuzzyOptions::default() };
    let result = omp_search::fuzzy_find("", &opts, &CancelToken::new()).unwrap();
    let paths: Vec<&str> = result.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["cli", "src", "docs", "packages"]);
    assert!(result.total_matches > 4);
}

#[test]
fn errors_and_cancellation() {
    let t = project();
    let opts = FuzzyOptions { root: t.path("missing"), ..FuzzyOptions::default() };
    assert_eq!(
        omp_search::fuzzy_find("x", &opts, &CancelToken::new()),
        Err(SearchError::NotFound { path: t.path("missing") })
    );
    let cancel = CancelToken::new();
    cancel.cancel();
    let opts = FuzzyOptions { root: t.root.clone(), ..FuzzyOptions::default() };
    assert_eq!(omp_search::fuzzy_find("x", &opts, &cancel), Err(SearchError::Cancelled));
}
