// The Rust addon's JS surface (core/natives/api.ts), loaded straight from a build:
// OMP_TEST_ADDON=<path>, else the addon `bun run build` left in native/out for this CPU.
import { describe, expect, test } from "bun:test";
import { chmodSync, closeSync, copyFileSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NativeAddon } from "../../core/natives/api.ts";
import { addonFileName } from "../../core/natives/names.ts";
import { chooseVariant, platformTag } from "../../core/natives/variant.ts";
import { tempDir } from "../support/temp.ts";

const ADDON =
  process.env.OMP_TEST_ADDON ?? join(import.meta.dir, "../../native/out", addonFileName(platformTag(), chooseVariant().order[0]!));
if (!existsSync(ADDON)) throw new Error(`no addon at ${ADDON}: run bun run build:native (or set OMP_TEST_ADDON)`);

function load(path: string): NativeAddon {
  const module = { exports: {} as NativeAddon };
  process.dlopen(module, path);
  return module.exports;
}

const addon = load(ADDON);
const scratch = () => tempDir("omp-addon-");

/** The thrown value of `f`, which must throw. */
function thrown(f: () => unknown): Error & { code?: string } {
  try {
    f();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a throw");
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a rejection");
}

describe("natives addon", () => {
  test("exports exactly the api.ts surface", () => {
    expect(Object.keys(addon).sort()).toEqual(["buildStamp", "changedPaths", "changedPathsSync", "debugPanic", "fuzzyFind", "glob", "globStream", "grep", "grepStream"]);
  });

  describe("buildStamp", () => {
    test("is a version, stored once in the file as omp-natives-stamp:<version>\\0", () => {
      const stamp = addon.buildStamp();
      expect(stamp).toMatch(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/);
      const file = readFileSync(ADDON);
      expect(file.indexOf("omp-natives-stamp:")).toBe(file.lastIndexOf("omp-natives-stamp:"));
      expect(file.includes(Buffer.from(`omp-natives-stamp:${stamp}\0`))).toBe(true);
    });

    test("reads the bytes of the loaded file: a patched copy reports the patched version", () => {
      const stamp = addon.buildStamp();
      // Same length, every digit changed, so the copy claims another version.
      const other = stamp.replace(/\d/g, (d) => String((Number(d) + 1) % 10));
      const file = readFileSync(ADDON);
      const at = file.indexOf(`omp-natives-stamp:${stamp}\0`);
      file.write(`omp-natives-stamp:${other}\0`, at);
      const copy = join(scratch(), "patched.node");
      writeFileSync(copy, file);
      expect(load(copy).buildStamp()).toBe(other);
      expect(addon.buildStamp()).toBe(stamp);
    });
  });

  describe("panics", () => {
    test('debugPanic("sync") throws OMP_PANIC and the process lives on', () => {
      const error = thrown(() => addon.debugPanic("sync"));
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe("OMP_PANIC");
      expect(error.message).toContain('debugPanic("sync") panicked');
      expect(addon.buildStamp()).toBeString();
    });

    test('debugPanic("async") rejects with OMP_PANIC', async () => {
      const error = await rejection(addon.debugPanic("async"));
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe("OMP_PANIC");
      expect(error.message).toContain('debugPanic("async") panicked');
      expect(thrown(() => addon.debugPanic("sync")).code).toBe("OMP_PANIC");
    });

    test("an unknown place is an invalid option", () => {
      const error = thrown(() => addon.debugPanic("later" as "sync"));
      expect(error.code).toBe("OMP_INVALID_OPTIONS");
      expect(error.message).toBe('where must be one of "sync", "async", got "later"');
    });
  });

  describe("bad options throw OMP_INVALID_OPTIONS naming the field", () => {
    const cases: [string, () => unknown, string][] = [
      ["unknown key", () => addon.grep({ pattern: "x", maxcount: 1 } as never), "unknown option options.maxcount (did you mean maxCount?); allowed options: pattern, paths,"],
      ["wrong type", () => addon.grep({ pattern: "x", maxCount: "abc" } as never), 'options.maxCount must be a non-negative integer, got "abc"'],
      ["missing required", () => addon.grep({} as never), "options.pattern must be a string, got undefined"],
      ["not an object", () => addon.grep([] as never), "options must be an object, got an array"],
      ["bad mode", () => addon.grep({ pattern: "x", mode: "lines" } as never), 'options.mode must be one of "content", "files_with_matches", "count", got "lines"'],
      ["bad array item", () => addon.grep({ pattern: "x", paths: ["a", 3] } as never), "options.paths[1] must be a string, got 3"],
      ["negative", () => addon.grep({ pattern: "x", limit: -1 }), "options.limit must be a non-negative integer, got -1"],
      ["fraction", () => addon.grep({ pattern: "x", timeoutMs: 1.5 }), "options.timeoutMs must be a non-negative integer, got 1.5"],
      ["not a signal", () => addon.grep({ pattern: "x", signal: {} as AbortSignal }), "options.signal must be an AbortSignal, got an object"],
      ["bad kind", () => addon.glob({ patterns: ["*"], kinds: ["file", "folder" as "file"] }), 'options.kinds[1] must be one of "file", "dir", "symlink", got "folder"'],
      ["glob unknown key", () => addon.glob({ patterns: ["*"], cwd: "." } as never), "unknown option options.cwd; allowed options: patterns, root,"],
      ["fuzzy query", () => addon.fuzzyFind(42 as never), "query must be a string, got 42"],
      ["fuzzy unknown key", () => addon.fuzzyFind("q", { limit: 3 } as never), "unknown option options.limit; allowed options: root,"],
    ];
    for (const [name, call, message] of cases) {
      test(name, () => {
        const error = thrown(call);
        expect(error).toBeInstanceOf(Error);
        expect(error.code).toBe("OMP_INVALID_OPTIONS");
        expect(error.message).toStartWith(message);
      });
    }

    test("undefined and null options fields count as absent", async () => {
      const dir = scratch();
      const result = await addon.fuzzyFind("x", { root: dir, maxResults: undefined, hidden: null as never });
      expect(result.matches).toEqual([]);
      expect((await addon.fuzzyFind("x", null as never)).matches).toBeArray();
    });
  });

  test("exceptions from JS getters and listeners propagate unchanged", () => {
    const getter = thrown(() =>
      addon.grep({
        get pattern(): string {
          throw new TypeError("getter boom");
        },
      }),
    );
    expect(getter).toBeInstanceOf(TypeError);
    expect(getter.message).toBe("getter boom");
    const signal = {
      aborted: false,
      addEventListener: () => {
        throw new RangeError("add boom");
      },
      removeEventListener: () => {
        throw new Error("remove boom");
      },
    } as unknown as AbortSignal;
    const listener = thrown(() => addon.grep({ pattern: "x", signal }));
    expect(listener).toBeInstanceOf(RangeError);
    expect(listener.message).toBe("add boom");
  });

  describe("cancellation", () => {
    test("an already-aborted signal rejects (not throws) with OMP_CANCELLED", async () => {
      const controller = new AbortController();
      controller.abort();
      for (const start of [
        () => addon.grep({ pattern: "x", signal: controller.signal }),
        () => addon.glob({ patterns: ["*"], signal: controller.signal }),
        () => addon.fuzzyFind("x", { signal: controller.signal }),
      ]) {
        const error = await rejection(start());
        expect(error.code).toBe("OMP_CANCELLED");
        expect(error.message).toBe("search cancelled");
      }
    });

    test("timeoutMs: 0 rejects as timed out, whatever the engine", async () => {
      const error = await rejection(addon.grep({ pattern: "x", paths: [scratch()], timeoutMs: 0 }));
      expect(error.code).toBe("OMP_CANCELLED");
      expect(error.message).toBe("search timed out after 0 ms");
    });

    test("the abort listener is added once and removed when the search settles", async () => {
      const calls: [string, string, unknown, unknown][] = [];
      const signal = {
        aborted: false,
        addEventListener: (type: string, listener: unknown, options: unknown) => calls.push(["add", type, listener, options]),
        removeEventListener: (type: string, listener: unknown) => calls.push(["remove", type, listener, undefined]),
      } as unknown as AbortSignal;
      await addon.glob({ patterns: ["*"], root: scratch(), signal });
      expect(calls.map(([what, type]) => `${what} ${type}`)).toEqual(["add abort", "remove abort"]);
      expect(calls[0]![2]).toBeFunction();
      expect(calls[1]![2]).toBe(calls[0]![2]);
      expect(calls[0]![3]).toEqual({ once: true });

      calls.length = 0;
      await rejection(addon.grep({ pattern: "(", paths: [scratch()], signal }));
      expect(calls.map(([what]) => what)).toEqual(["add", "remove"]);
    });
  });

  describe("off the JS thread", () => {
    test("results arrive asynchronously, never within the call's microtask", async () => {
      let settled = false;
      const promise = addon.glob({ patterns: ["*"], root: scratch() }).finally(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await promise;
      expect(settled).toBe(true);
    });

    test("the event loop keeps ticking during a long grep, and an abort stops it promptly", async () => {
      let ticks = 0;
      const interval = setInterval(() => ticks++, 2);
      const controller = new AbortController();
      const started = performance.now();
      const search = addon.grep({ pattern: "zqxj_never_present", paths: ["/usr/share"], mode: "count", signal: controller.signal });
      // The abort itself arrives through a timer, so the loop ran; the ticks show it kept running.
      setTimeout(() => controller.abort(), 40);
      const error = await rejection(search);
      const elapsed = performance.now() - started;
      clearInterval(interval);
      expect(error.code).toBe("OMP_CANCELLED");
      expect(error.message).toBe("search cancelled");
      expect(ticks).toBeGreaterThanOrEqual(5);
      expect(elapsed).toBeLessThan(2000);
    });

    test("a deadline stops a long grep with a timed-out message", async () => {
      const error = await rejection(addon.grep({ pattern: "zqxj_never_present", paths: ["/usr/share"], timeoutMs: 50 }));
      expect(error.code).toBe("OMP_CANCELLED");
      expect(error.message).toBe("search timed out after 50 ms");
    });
  });

  describe("round trips over a temp tree", () => {
    const tree = () => {
      const root = scratch();
      mkdirSync(join(root, "src", "deep"), { recursive: true });
      writeFileSync(join(root, "src", "main.rs"), "fn main() {\n    let needle = 1;\n}\n");
      writeFileSync(join(root, "src", "deep", "notes.txt"), "one\nneedle two\nthree\nneedle four\n");
      writeFileSync(join(root, "readme.md"), "no match here\n");
      return root;
    };

    test("grep: content with context, files_with_matches and count", async () => {
      const root = tree();
      const content = await addon.grep({ pattern: "needle", paths: [root], contextAfter: 1 });
      expect(content).toEqual({
        files: [
          {
            path: join(root, "src/deep/notes.txt"),
            lines: [
              { lineNumber: 2, text: "needle two", kind: "match", truncated: false },
              { lineNumber: 3, text: "three", kind: "context", truncated: false },
              { lineNumber: 4, text: "needle four", kind: "match", truncated: false },
            ],
            matchCount: 2,
          },
          {
            path: join(root, "src/main.rs"),
            lines: [
              { lineNumber: 2, text: "    let needle = 1;", kind: "match", truncated: false },
              { lineNumber: 3, text: "}", kind: "context", truncated: false },
            ],
            matchCount: 1,
          },
        ],
        totalMatches: 3,
        filesWithMatches: 2,
        filesSearched: 3,
        binarySkipped: 0,
        limitReached: false,
      });
      const files = await addon.grep({ pattern: "NEEDLE", ignoreCase: true, paths: [root], mode: "files_with_matches", types: ["rust"] });
      expect(files.files).toEqual([{ path: join(root, "src/main.rs"), lines: [], matchCount: 1 }]);
      const count = await addon.grep({ pattern: "needle", paths: [root], mode: "count", globs: ["*.txt"] });
      expect(count.files.map((f) => [f.path, f.matchCount])).toEqual([[join(root, "src/deep/notes.txt"), 2]]);
    });

    test("grep: engine errors carry their codes", async () => {
      const root = tree();
      // Started one at a time: a rejection nobody awaits yet would count as unhandled.
      const cases: [() => Promise<unknown>, string, string][] = [
        [() => addon.grep({ pattern: "(", paths: [root] }), "OMP_BAD_PATTERN", 'invalid pattern "("'],
        [() => addon.grep({ pattern: "x", paths: [join(root, "missing")] }), "OMP_NOT_FOUND", join(root, "missing")],
        [() => addon.grep({ pattern: "x", paths: [root], types: ["no-such-type"] }), "OMP_UNKNOWN_TYPE", "no-such-type"],
        [() => addon.grep({ pattern: "x", paths: [root], globs: ["a[b"] }), "OMP_BAD_GLOB", 'invalid glob "a[b"'],
      ];
      for (const [start, code, message] of cases) {
        const error = await rejection(start());
        expect(error).toBeInstanceOf(Error);
        expect(error.code).toBe(code);
        expect(error.message).toContain(message);
      }
    });

    test("glob: entries with kind, size and mtime", async () => {
      const root = tree();
      const result = await addon.glob({ patterns: ["**/*.rs", "*.md"], root, kinds: ["file"] });
      expect(result.entries.map((e) => [e.path, e.kind, e.size])).toEqual([
        ["readme.md", "file", 14],
        ["src/main.rs", "file", 34],
      ]);
      expect(result.entries[0]!.mtimeMs).toBeGreaterThan(Date.now() - 60_000);
      expect(result.totalMatches).toBe(2);
      expect(result.limitReached).toBe(false);
      const dirs = await addon.glob({ patterns: ["*"], root, kinds: ["dir"], maxResults: 1 });
      expect(dirs.entries.map((e) => [e.path, e.kind])).toEqual([["src", "dir"]]);
      expect(dirs.limitReached).toBe(true);
    });

    /** Every chunk of `stream` until it ends, concatenated. */
    async function drain(stream: ReturnType<NativeAddon["grepStream"]>): Promise<{ text: string; chunks: number }> {
      const parts: Buffer[] = [];
      for (let chunk = await stream.next(); chunk !== null; chunk = await stream.next()) {
        expect(chunk).toBeInstanceOf(Buffer);
        parts.push(chunk);
      }
      return { text: Buffer.concat(parts).toString(), chunks: parts.length };
    }

    test("grepStream: rg's lines in path order, then the totals", async () => {
      const root = tree();
      const stream = addon.grepStream({ pattern: "needle", paths: [root], contextAfter: 1, withFilename: true });
      expect(stream.summary()).toBeNull();
      const { text } = await drain(stream);
      const notes = join(root, "src/deep/notes.txt");
      const main = join(root, "src/main.rs");
      expect(text).toBe(`${notes}:2:needle two\n${notes}-3-three\n${notes}:4:needle four\n--\n${main}:2:    let needle = 1;\n${main}-3-}\n`);
      expect(stream.summary()).toEqual({ totalMatches: 3, filesWithMatches: 2, filesSearched: 3, binarySkipped: 0 });
      const counts = await drain(addon.grepStream({ pattern: "needle", paths: [root], mode: "count", sort: "none" }));
      expect(counts.text.split("\n").filter(Boolean).sort()).toEqual(["1", "2"]);
    });

    test("grepStream: a big result arrives in several bounded chunks", async () => {
      const root = scratch();
      for (let i = 0; i < 40; i++) writeFileSync(join(root, `f${String(i).padStart(2, "0")}.txt`), `needle ${"y".repeat(100)}\n`.repeat(500));
      const { text, chunks } = await drain(addon.grepStream({ pattern: "needle", paths: [root] }));
      expect(text.length).toBeGreaterThan(2_000_000);
      expect(chunks).toBeGreaterThan(4);
      expect(text.split("\n").length - 1).toBe(40 * 500);
    });

    test("grepStream pipeTo: the same bytes written to a descriptor, then the totals; a failing write rejects", async () => {
      const root = scratch();
      for (let i = 0; i < 40; i++) writeFileSync(join(root, `f${String(i).padStart(2, "0")}.txt`), `needle ${"y".repeat(100)}\n`.repeat(500));
      const expected = (await drain(addon.grepStream({ pattern: "needle", paths: [root] }))).text;
      const out = join(scratch(), "out.txt");
      const fd = openSync(out, "w");
      const stream = addon.grepStream({ pattern: "needle", paths: [root] });
      try {
        expect(await stream.pipeTo(fd)).toBe(true);
      } finally {
        closeSync(fd);
      }
      expect(readFileSync(out, "utf8")).toBe(expected);
      expect(stream.summary()).toEqual({ totalMatches: 20_000, filesWithMatches: 40, filesSearched: 40, binarySkipped: 0 });
      const full = openSync("/dev/full", "w");
      try {
        const failed = await rejection(addon.grepStream({ pattern: "needle", paths: [root] }).pipeTo(full));
        expect(failed.code).toBe("OMP_IO");
        expect(failed.message).toContain("cannot write the output: No space left on device");
      } finally {
        closeSync(full);
      }
    });

    test("grepStream: close() stops it; next() then gives null and summary() null", async () => {
      const root = scratch();
      for (let i = 0; i < 200; i++) writeFileSync(join(root, `f${i}.txt`), "needle\n".repeat(2000));
      const stream = addon.grepStream({ pattern: "needle", paths: [root] });
      expect(await stream.next()).toBeInstanceOf(Buffer);
      stream.close();
      expect(await stream.next()).toBeNull();
      expect(stream.summary()).toBeNull();
    });

    test("grepStream: errors reject next() with their codes; unknown options throw", async () => {
      const root = tree();
      const bad = await rejection(addon.grepStream({ pattern: "(", paths: [root] }).next());
      expect(bad.code).toBe("OMP_BAD_PATTERN");
      const missing = await rejection(addon.grepStream({ pattern: "x", paths: [join(root, "missing")] }).next());
      expect(missing.code).toBe("OMP_NOT_FOUND");
      const paging = thrown(() => addon.grepStream({ pattern: "x", offset: 1 } as never));
      expect(paging.code).toBe("OMP_INVALID_OPTIONS");
      const order = thrown(() => addon.grepStream({ pattern: "x", sort: "modified" as never }));
      expect(order.message).toContain('"path", "none"');
    });

    test("grepStream json: exactly the records JSON.stringify made of the collected result", async () => {
      const root = scratch();
      mkdirSync(join(root, "d é"), { recursive: true });
      writeFileSync(join(root, "a.txt"), 'x "quoted" \\ back\tslash\r\nctl \u0001\u001f\u007f x\nplain\nx é 😀 \u2028\n' + `x ${"long".repeat(40)}\n`);
      writeFileSync(join(root, "d é", "b.txt"), Buffer.concat([Buffer.from("before\nx bad \xff\xfe utf8\nafter\n", "latin1")]));
      const base = { pattern: "x", paths: [root], contextBefore: 1, contextAfter: 1, maxColumns: 60 };
      for (const mode of ["content", "files_with_matches", "count"] as const) {
        const collected = await addon.grep({ ...base, mode });
        const expected = collected.files.flatMap((file) =>
          mode === "content"
            ? file.lines.map((line) => JSON.stringify({ type: line.kind, path: file.path, line: line.lineNumber, text: line.text, truncated: line.truncated }))
            : [JSON.stringify({ type: "file", path: file.path, count: file.matchCount })],
        );
        const stream = addon.grepStream({ ...base, mode, json: true });
        const { text } = await drain(stream);
        expect(text).toBe(expected.map((line) => `${line}\n`).join(""));
        expect(stream.summary()).toMatchObject({ totalMatches: collected.totalMatches, filesWithMatches: collected.filesWithMatches });
      }
      // The lines the comparison must cover are there: a replaced byte, an omitted long line, context.
      const content = (await drain(addon.grepStream({ ...base, json: true }))).text;
      expect(content).toContain("\ufffd");
      expect(content).toContain('"truncated":true');
      expect(content).toContain('"type":"context"');
    });

    test("globStream: prefixed paths in order, a cap, and the count", async () => {
      const root = tree();
      const stream = addon.globStream({ patterns: ["*"], root, kinds: ["file"], prefix: "top/" });
      expect((await drain(stream)).text).toBe("top/readme.md\ntop/src/deep/notes.txt\ntop/src/main.rs\n");
      expect(stream.summary()?.totalMatches).toBe(3);
      expect((await drain(addon.globStream({ patterns: ["*"], root, maxResults: 2 }))).text).toBe("readme.md\nsrc\n");
      const excluded = await drain(addon.globStream({ patterns: ["*", "!deep"], root, sort: "none" }));
      expect(excluded.text.split("\n").filter(Boolean).sort()).toEqual(["readme.md", "src", "src/main.rs"]);
    });

    test("globStream long and json: what JavaScript made of the collected entries, also newest first", async () => {
      const root = scratch();
      const sizes = [0, 1023, 1024, 1280, 1331, 1536, 1792, 1_572_864];
      sizes.forEach((size, i) => {
        const file = join(root, i % 2 ? "sub dir" : "", `f${i} "q".txt`);
        mkdirSync(join(file, ".."), { recursive: true });
        writeFileSync(file, Buffer.alloc(size, 120));
        // Fractional seconds, one before 1970: the times JavaScript's Date truncates and formats.
        utimesSync(file, 1_700_000_000 + i * 1000.5678, 1_700_000_000 + i * 7777.125);
        // Bun's utimes refuses a time before 1970; touch sets one.
        if (i === 3) expect(Bun.spawnSync(["touch", "-m", "-d", "1960-01-01T00:00:00.75Z", file]).exitCode).toBe(0);
      });
      // JavaScript's own formatting of an entry, as the CLI printed collected results.
      const size = (bytes: number) => {
        const units = ["B", "K", "M", "G", "T"];
        let value = bytes;
        let unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
          value /= 1024;
          unit++;
        }
        return `${unit === 0 ? value : value.toFixed(1)}${units[unit]}`.padStart(7);
      };
      for (const newestFirst of [false, true]) {
        const collected = await addon.glob({ patterns: ["*"], root, newestFirst });
        const shown = (path: string) => join("top", path);
        const long = collected.entries.map((entry) => `${size(entry.size)}  ${new Date(entry.mtimeMs).toISOString()}  ${shown(entry.path)}\n`).join("");
        const json = collected.entries.map((entry) => `${JSON.stringify({ ...entry, path: shown(entry.path) })}\n`).join("");
        expect((await drain(addon.globStream({ patterns: ["*"], root, newestFirst, prefix: "top/", format: "long" }))).text).toBe(long);
        expect((await drain(addon.globStream({ patterns: ["*"], root, newestFirst, prefix: "top/", format: "json" }))).text).toBe(json);
      }
      const long = (await drain(addon.globStream({ patterns: ["*"], root, format: "long" }))).text;
      // The cases the comparison must cover: a halfway size, a time before 1970, a directory.
      expect(long).toContain("   1.3K  ");
      expect(long).toContain("1960-01-01T00:00:00.750Z");
      expect(long).toContain("4.0K  ");
    });

    test("fuzzyFind: best match first", async () => {
      const root = tree();
      const result = await addon.fuzzyFind("notes", { root, maxResults: 5 });
      expect(result.matches[0]).toMatchObject({ path: "src/deep/notes.txt", isDir: false });
      expect(result.matches[0]!.score).toBeNumber();
      expect(result.totalMatches).toBeGreaterThanOrEqual(1);
    });
  });
  describe("changedPaths / changedPathsSync", () => {
    /** git's stat data of `path` as work-tree-stat.ts lays it out: mode (644/755 or the file type), inode and size cut to 32 bits, ctime, mtime. */
    const fields = (path: string): number[] => {
      const stat = lstatSync(path);
      const type = stat.mode & 0o170000;
      const mode = type === 0o100000 ? (stat.mode & 0o100 ? 0o100755 : 0o100644) : type;
      return [mode, stat.ino % 0x100000000, stat.size % 0x100000000, stat.ctimeMs, stat.mtimeMs];
    };
    const indexes = (bytes: Buffer) => [...new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))];

    test("the look on the calling thread answers what the worker-thread look answers, for every kind of change", async () => {
      const root = scratch();
      const names = ["same.txt", "edited.txt", "gone.txt", "chmod.txt", "link", "became-dir", "sub/same.txt", "sub/touched.txt", "racy.txt", "nosuchdir/x.txt", "é ü.txt"];
      mkdirSync(join(root, "sub"));
      for (const name of names) if (!name.startsWith("nosuchdir") && name !== "link") writeFileSync(join(root, name), `${name}\n`);
      symlinkSync("same.txt", join(root, "link"));
      const name = (at: number) => names[at]!;
      const paths = names.map((name) => join(root, name));
      const expected = new Float64Array(paths.length * 5);
      paths.forEach((path, at) => expected.set(name(at) === "nosuchdir/x.txt" ? [0o100644, 1, 1, 1, 1] : fields(path), at * 5));
      // Negative mode: always reported (a racy file), whatever its stat data.
      expected[names.indexOf("racy.txt") * 5] = -1;
      const joined = paths.join("\0");
      const bytes = Buffer.from(expected.buffer);
      // Nothing touched: only the racy file and the path that was never there.
      const unchanged = [names.indexOf("racy.txt"), names.indexOf("nosuchdir/x.txt")];
      expect(indexes(addon.changedPathsSync(joined, bytes))).toEqual(unchanged);
      expect(indexes(await addon.changedPaths(joined, bytes))).toEqual(unchanged);
      writeFileSync(join(root, "edited.txt"), "edited, longer\n");
      rmSync(join(root, "gone.txt"));
      chmodSync(join(root, "chmod.txt"), 0o755);
      rmSync(join(root, "link"));
      symlinkSync("sub/same.txt", join(root, "link"));
      rmSync(join(root, "became-dir"));
      mkdirSync(join(root, "became-dir"));
      const later = new Date(Date.now() + 5000);
      utimesSync(join(root, "sub", "touched.txt"), later, later);
      const sync = indexes(addon.changedPathsSync(joined, bytes));
      expect(sync.map(name)).toEqual(["edited.txt", "gone.txt", "chmod.txt", "link", "became-dir", "sub/touched.txt", "racy.txt", "nosuchdir/x.txt"]);
      expect(indexes(await addon.changedPaths(joined, bytes))).toEqual(sync);
      // No paths: nothing moved, on either thread.
      expect(indexes(addon.changedPathsSync("", Buffer.alloc(0)))).toEqual([]);
      expect(indexes(await addon.changedPaths("", Buffer.alloc(0)))).toEqual([]);
    });

    test("expected stat data of the wrong length is refused on both, naming the argument", async () => {
      const path = join(scratch(), "a.txt");
      writeFileSync(path, "a");
      const short = Buffer.alloc(8 * 4);
      expect(thrown(() => addon.changedPathsSync(path, short)).message).toContain("expected: 32 bytes for 1 paths, want 40");
      expect((await rejection(Promise.resolve().then(() => addon.changedPaths(path, short)))).message).toContain("expected: 32 bytes for 1 paths, want 40");
    });
  });
});
