//! Shared helpers for the integration tests: throwaway directory trees and rendering results the
//! way `rg -n --no-heading` prints them.
#![allow(dead_code)] // each test binary uses a different subset

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use omp_search::{GrepMode, GrepOptions, GrepPrint, GrepResult, LineKind, Outbox, SortOrder};

/// A directory under the system temp dir, removed on drop.
pub struct Tree {
    pub root: PathBuf,
}

impl Tree {
    pub fn new(name: &str) -> Tree {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let unique = format!("omp-search-{}-{}-{}", name, std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let root = std::env::temp_dir().join(unique);
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        Tree { root }
    }

    pub fn file(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Tree {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    pub fn dir(&self, rel: &str) -> &Tree {
        fs::create_dir_all(self.root.join(rel)).unwrap();
        self
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Options searching this tree's root.
    pub fn grep(&self, pattern: &str) -> GrepOptions {
        GrepOptions { pattern: pattern.to_string(), paths: vec![self.root.clone()], ..GrepOptions::default() }
    }

    /// Strips the root prefix from paths in rendered output, for readable assertions.
    pub fn rel(&self, rendered: &str) -> String {
        rendered.replace(&format!("{}/", self.root.display()), "")
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

pub fn search(opts: &GrepOptions) -> GrepResult {
    omp_search::grep(opts, &omp_search::CancelToken::new()).unwrap()
}

/// What the streaming grep prints in `order`, with file names unless a single file is searched
/// (as rg decides), drained on another thread as JS drains it.
pub fn stream(opts: &GrepOptions, order: SortOrder) -> String {
    let outbox = std::sync::Arc::new(Outbox::default());
    let reader = {
        let outbox = std::sync::Arc::clone(&outbox);
        std::thread::spawn(move || {
            let mut out = Vec::new();
            while let Some(chunk) = outbox.next_chunk() {
                out.extend_from_slice(&chunk);
            }
            out
        })
    };
    let single_file = opts.paths.len() == 1 && opts.paths[0].is_file();
    let print = GrepPrint { with_filename: !single_file, order, json: false };
    let outcome = omp_search::grep_stream(opts, print, &outbox, &omp_search::CancelToken::new());
    outbox.finish(outcome.clone());
    let text = String::from_utf8(reader.join().unwrap()).unwrap();
    outcome.expect("streaming grep failed");
    text
}

/// What `rg --sort path -n --no-heading [-c|-l]` prints for the same search, including the `--`
/// separators ripgrep prints between non-adjacent lines and between files when context is on.
pub fn render(result: &GrepResult, opts: &GrepOptions) -> String {
    let mut out = String::new();
    let context = opts.context_before > 0 || opts.context_after > 0;
    // rg leaves the file name out when it was given a single file.
    let single_file = opts.paths.len() == 1 && opts.paths[0].is_file();
    for (i, file) in result.files.iter().enumerate() {
        match opts.mode {
            GrepMode::FilesWithMatches => out.push_str(&format!("{}\n", file.path)),
            GrepMode::Count if single_file => out.push_str(&format!("{}\n", file.match_count)),
            GrepMode::Count => out.push_str(&format!("{}:{}\n", file.path, file.match_count)),
            GrepMode::Content => {
                let mut last: Option<u64> = None;
                for line in &file.lines {
                    let gap = match last {
                        Some(n) => line.line_number != n + 1,
                        None => i > 0,
                    };
                    if context && gap {
                        out.push_str("--\n");
                    }
                    let sep = if line.kind == LineKind::Match { ':' } else { '-' };
                    if !single_file {
                        out.push_str(&format!("{}{}", file.path, sep));
                    }
                    out.push_str(&format!("{}{}{}\n", line.line_number, sep, line.text));
                    last = Some(line.line_number);
                }
            }
        }
    }
    out
}

/// Runs the real ripgrep, or returns `None` (after saying so) when it is not installed.
pub fn rg(args: &[&str], cwd: &Path) -> Option<String> {
    match Command::new("rg").args(args).current_dir(cwd).output() {
        Ok(output) => Some(String::from_utf8_lossy(&output.stdout).into_owned()),
        Err(_) => {
            eprintln!("note: `rg` is not on PATH; skipping the comparison with ripgrep");
            None
        }
    }
}
