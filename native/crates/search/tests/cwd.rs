//! Searches relative to the working directory, compared with the real `rg` run from the same
//! directory. Changing the process's working directory is why this is its own test binary with a
//! single test.

mod common;

use std::path::PathBuf;

use common::{render, rg, Tree};
use omp_search::{CancelToken, GrepMode, GrepOptions};

/// A repository exercising what differs between searchers (the same tree omp's end-to-end tests
/// compare `omp grep` with rg on).
fn fixture() -> Tree {
    let t = Tree::new("cwd");
    let context: String = (1..=20)
        .map(|i| if [3, 5, 12, 19].contains(&i) { format!("line {} foo\n", i) } else { format!("line {}\n", i) })
        .collect();
    t.file(".gitignore", "ignored_dir/\n*.log\n")
        .file(".ignore", "dotignored.txt\n")
        .file("src/main.rs", "fn main() {\n    println!(\"foo bar\");\n    let Foo = 1;\n}\n")
        .file("src/lib.rs", "pub fn foo() -> u32 {\n    42\n}\n// FOO in a comment\n")
        .file("src/util/helpers.ts", "export const foo = 'a.b(c';\nexport const bar = 'axb(c';\n")
        .file("src/util/Helpers.py", "def foo():\n    return 'foo'\n")
        .file("docs/readme.md", "# Foo\n\nFOO and foo.\nÉcole and école.\n日本語のテキスト foo\ncrab 🦀 foo\n")
        .file("ignored_dir/secret.txt", "foo in an ignored dir\n")
        .file("app.log", "foo in a log\n")
        .file("dotignored.txt", "foo in a .ignore'd file\n")
        .file(".hidden/inside.txt", "foo hidden inside\n")
        .file(".hiddenfile", "foo hidden\n")
        .file("bin/data.bin", [0u8, 1, 2, b'f', b'o', b'o', 10, b'f', b'o', b'o', 10])
        .file("crlf.txt", "foo\r\nbar\r\nfoo bar\r\n")
        .file("long.txt", format!("short foo\n{} foo {}\n", "x".repeat(120), "y".repeat(120)))
        .file("a-c/x.txt", "foo\n")
        .file("a/b.txt", "foo\n")
        .file("a.txt", "foo\n")
        .file("multi.txt", "start\nfoo\nbar\nend\nfoo\nbaz\n")
        .file("context.txt", context)
        .file(".git/HEAD", "ref: refs/heads/main\n");
    t
}

/// The few rg flags the cases use, as `GrepOptions`.
fn parse(args: &[&str]) -> GrepOptions {
    let mut opts = GrepOptions::default();
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(&arg) = it.next() {
        let mut value = || it.next().unwrap().to_string();
        match arg {
            "-i" => opts.ignore_case = true,
            "-S" => opts.smart_case = true,
            "-F" => opts.fixed_strings = true,
            "-U" => opts.multiline = true,
            "-c" => opts.mode = GrepMode::Count,
            "-l" => opts.mode = GrepMode::FilesWithMatches,
            "--hidden" => opts.hidden = true,
            "--no-ignore" => opts.respect_ignore = false,
            "-g" => opts.globs.push(value()),
            "-t" => opts.types.push(value()),
            "-A" => opts.context_after = value().parse().unwrap(),
            "-B" => opts.context_before = value().parse().unwrap(),
            "-C" => {
                opts.context_after = value().parse().unwrap();
                opts.context_before = opts.context_after;
            }
            "-m" => opts.max_count = Some(value().parse().unwrap()),
            "-M" | "--max-columns" => opts.max_columns = Some(value().parse().unwrap()),
            _ => positional.push(arg),
        }
    }
    opts.pattern = positional[0].to_string();
    opts.paths = positional[1..].iter().map(PathBuf::from).collect();
    opts
}

#[test]
fn relative_paths_print_like_ripgrep() {
    let t = fixture();
    std::env::set_current_dir(&t.root).unwrap();
    let cases: &[&[&str]] = &[
        &["foo"],
        &["foo", "."],
        &["foo", "./src"],
        &["foo", "src/", "a.txt"],
        &["foo", "src", "docs"],
        &["foo", "src/main.rs"],
        &["foo", "src/main.rs", "src/lib.rs"],
        &["foo", "ignored_dir/secret.txt"],
        // Not `foo bin/data.bin`: rg prints "binary file matches" there, which a GrepResult
        // cannot say (the file is skipped and counted in binary_skipped instead).
        &["-c", "foo", "bin/data.bin"],
        &["-l", "foo", "bin/data.bin"],
        &["-i", "FOO"],
        &["-S", "Foo"],
        &["-S", "foo"],
        &["-F", "a.b(c"],
        &["a.b(c"],
        &["-U", "foo\\nbar"],
        &["-U", "-c", "foo\\nbar"],
        &["-U", "-C", "1", "foo\\nbar"],
        &["-g", "*.rs", "foo"],
        &["-g", "!*.md", "foo"],
        &["-g", "src/**", "-g", "!*.py", "foo"],
        &["-g", "src/*.rs", "foo"],
        &["-g", "!src/util", "foo"],
        &["-t", "rust", "foo"],
        &["-t", "py", "-t", "ts", "foo"],
        &["--hidden", "foo"],
        &["--no-ignore", "foo"],
        &["--hidden", "--no-ignore", "foo"],
        &["-A", "2", "foo", "context.txt"],
        &["-B", "1", "foo"],
        &["-C", "1", "foo"],
        &["-C", "3", "foo", "context.txt"],
        &["-m", "1", "foo"],
        &["-m", "2", "-A", "1", "foo", "context.txt"],
        &["-m", "1", "-A", "9", "foo", "context.txt"],
        &["-l", "foo"],
        &["-c", "foo"],
        &["-c", "foo", "context.txt"],
        &["-M", "50", "foo"],
        &["--max-columns", "50", "-C", "1", "foo", "long.txt"],
        &["日本"],
        &["-i", "école"],
        &["🦀"],
        &["bar", "crlf.txt"],
        &["bar$", "crlf.txt"],
        &["-i", "-F", "FOO AND"],
        &["zzzz_no_such_text"],
    ];
    for &args in cases {
        let mut rg_args = vec!["--no-config", "--sort", "path", "-n", "--no-heading", "--color", "never"];
        rg_args.extend_from_slice(args);
        let expected = match rg(&rg_args, &t.root) {
            Some(out) => out,
            None => break,
        };
        let opts = parse(args);
        // rg prints nothing on stdout for a bad pattern either.
        let ours = omp_search::grep(&opts, &CancelToken::new()).map_or(String::new(), |r| render(&r, &opts));
        assert_eq!(ours, expected, "rg {:?}", args);
    }
    // Leave the directory before the tree removes it.
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
}
