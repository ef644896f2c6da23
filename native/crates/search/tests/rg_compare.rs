//! Runs the same searches through `omp_search::grep` and the real `rg --sort path -n --no-heading`
//! and compares the printed output byte for byte.

mod common;

use common::{render, rg, search, stream, Tree};
use omp_search::{GrepMode, GrepOptions, SortOrder};

fn fixture() -> Tree {
    let t = Tree::new("rg-compare");
    t.dir(".git")
        .file(".gitignore", "ignored/\n*.log\n")
        .file("ignored/skip.txt", "foo in an ignored dir\n")
        .file("debug.log", "foo in a log\n")
        .file(".hidden/secret.txt", "foo hidden\n")
        .file(".env", "FOO=foo\n")
        .file("a/b.txt", "one\nfoo two\nthree\nfour\nfive\nsix foo\nseven\n")
        .file("a-c.txt", "Foo upper\nfoo lower\n")
        .file("a.txt", "x\nfoo\n")
        .file("src/main.rs", "fn main() {\n    let foo = 1;\n    println!(\"{}\", foo);\n}\n")
        .file("src/lib.rs", "// a.b(c literal\npub fn foo() {}\nlet s = \"a.b(c\";\nabc\n")
        .file("src/deep/mod.rs", "foo\nbar\nfoo\nbar\nbaz\n")
        .file("multi.txt", "start foo\nbar end\nnothing\nfoo\nbar\nfoo foo\n")
        .file("unicode.txt", "naïve foo café\nΣίσυφος FOO\n日本語 foo\n")
        .file("crlf.txt", "first\r\nfoo crlf\r\nlast\r\n")
        .file("long.txt", format!("short foo\n{} foo\nctx {}\nfoo\n", "x".repeat(80), "y".repeat(80)))
        .file("bin.dat", b"foo\x00binary\n")
        .file("many.txt", "foo 1\nfoo 2\nfoo 3\nbar\nfoo 4\nbaz\nqux\nfoo 5\n");
    t
}

fn compare(t: &Tree, flags: &[&str], pattern: &str, configure: impl Fn(&mut GrepOptions)) {
    let root = t.root.to_str().unwrap();
    let mut args = vec!["--sort", "path", "-n", "--no-heading"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", pattern, root]);
    // rg roots `-g` globs at its working directory, and so does grep: run both from the same one.
    let expected = match rg(&args, &std::env::current_dir().unwrap()) {
        Some(out) => out,
        None => return,
    };
    let mut opts = t.grep(pattern);
    configure(&mut opts);
    let actual = render(&search(&opts), &opts);
    assert_eq!(t.rel(&actual), t.rel(&expected), "rg {:?}", args);
    assert_eq!(t.rel(&stream(&opts, SortOrder::Path)), t.rel(&expected), "streamed, rg {:?}", args);
    if opts.context_before == 0 && opts.context_after == 0 {
        let lines = |text: &str| {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            lines.sort();
            lines
        };
        assert_eq!(lines(&stream(&opts, SortOrder::None)), lines(&expected), "streamed unsorted, rg {:?}", args);
    }
}

#[test]
fn output_matches_ripgrep() {
    let t = fixture();
    compare(&t, &[], "foo", |_| {});
    compare(&t, &["-i"], "FOO", |o| o.ignore_case = true);
    compare(&t, &["-S"], "Foo", |o| o.smart_case = true);
    compare(&t, &["-S"], "foo", |o| o.smart_case = true);
    compare(&t, &["-F"], "a.b(c", |o| o.fixed_strings = true);
    compare(&t, &[], "a.b", |_| {});
    compare(&t, &["-U"], "foo\\nbar", |o| o.multiline = true);
    compare(&t, &["-U", "-C1"], "foo\\nbar", |o| {
        o.multiline = true;
        o.context_before = 1;
        o.context_after = 1;
    });
    compare(&t, &["-C2"], "foo", |o| {
        o.context_before = 2;
        o.context_after = 2;
    });
    compare(&t, &["-B1"], "foo", |o| o.context_before = 1);
    compare(&t, &["-m1", "-A2"], "foo", |o| {
        o.max_count = Some(1);
        o.context_after = 2;
    });
    compare(&t, &["-m2"], "foo", |o| o.max_count = Some(2));
    compare(&t, &["-M", "40", "-C1"], "foo", |o| {
        o.max_columns = Some(40);
        o.context_before = 1;
        o.context_after = 1;
    });
    compare(&t, &["-c"], "foo", |o| o.mode = GrepMode::Count);
    compare(&t, &["-c", "-m2"], "foo", |o| {
        o.mode = GrepMode::Count;
        o.max_count = Some(2);
    });
    compare(&t, &["-c", "-U"], "foo\\nbar|foo", |o| {
        o.mode = GrepMode::Count;
        o.multiline = true;
    });
    compare(&t, &["-l"], "foo", |o| o.mode = GrepMode::FilesWithMatches);
    compare(&t, &["--hidden"], "foo", |o| o.hidden = true);
    compare(&t, &["--no-ignore"], "foo", |o| o.respect_ignore = false);
    compare(&t, &["-g", "*.rs"], "foo", |o| o.globs = vec!["*.rs".into()]);
    compare(&t, &["-g", "!*.txt", "-g", "!src/deep/**"], "foo", |o| {
        o.globs = vec!["!*.txt".into(), "!src/deep/**".into()]
    });
    compare(&t, &["-t", "rust"], "foo", |o| o.types = vec!["rust".into()]);
    compare(&t, &[], "^$|nothing", |_| {});
    compare(&t, &[], "", |_| {});
    compare(&t, &["-U"], "(?s)start.*end", |o| o.multiline = true);
    compare(&t, &["-U", "-c"], "o\\s+b", |o| {
        o.multiline = true;
        o.mode = GrepMode::Count;
    });
}

#[test]
fn explicit_paths_keep_the_order_given() {
    let t = fixture();
    let (b, a) = (t.path("src"), t.path("a.txt"));
    let args = ["--sort", "path", "-n", "--no-heading", "foo", b.to_str().unwrap(), a.to_str().unwrap()];
    let expected = match rg(&args, &t.root) {
        Some(out) => out,
        None => return,
    };
    let mut opts = t.grep("foo");
    opts.paths = vec![b, a];
    assert_eq!(render(&search(&opts), &opts), expected);
    assert_eq!(stream(&opts, SortOrder::Path), expected);
}
