// read on documents, archives, SQLite databases and line selectors, in the compiled omp: real
// files made by real office tools (test/fixtures/documents/README.md), archives and databases
// made here by real tools (python3's zipfile, tar, sqlite3), and hostile files — a zip bomb, a
// tar with "..", a 2 GB sparse file, a corrupt PDF — that must give clear errors in bounded memory.
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { agentTestFile, modelRequests, runAgent, spawnOmp, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { eventually } from "../support/tty-session.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };
const FIXTURES = join(import.meta.dir, "..", "fixtures", "documents");

function project() {
  const ws = workspace();
  for (const name of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, name), join(ws.repo, name));
  return ws;
}

function run(cwd: string, ...argv: string[]) {
  const result = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${result.stderr.toString()}`);
}

/** Reads each path in one turn (print mode); returns the results the model was sent and the tool-result blocks. */
async function reads(ws: { home: string; repo: string }, paths: (string | Record<string, unknown>)[], wrapper?: string[]) {
  const calls = paths.map((path) => ({ name: "read", arguments: typeof path === "string" ? { path } : path }));
  standin.setScript([{ toolCalls: calls }, { text: "done" }]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env, ...(wrapper ? { wrapper } : {}) });
  expect(result.stderr).not.toContain("rror:");
  const body = modelRequests(standin)[1]!.body;
  return { results: toolResultsOf("anthropic-messages", body), blocks: body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result") };
}

describe("documents", () => {
  test("PDF pages (all, and pages 2-3 by selector), DOCX headings and list, PPTX slides, XLSX sheets, CSV, EPUB, a notebook with its image output", async () => {
    const ws = project();
    const { results, blocks } = await reads(ws, ["report.pdf", "report.pdf:2-3", "notes.docx", "deck.pptx", "book.xlsx", "people.csv", "notes.epub", "analysis.ipynb"]);
    const [pdf, pages, docx, pptx, xlsx, csv, epub, notebook] = results.map((r) => r.text);
    expect(pdf).toContain("report.pdf (PDF converted to text, 3 pages");
    expect(pdf).toContain("## Page 1");
    expect(pdf).toContain("North 1200 4%");
    expect(pdf).toContain("## Page 3");
    expect(pages).toContain("pages 2-3 of 3");
    expect(pages).toContain("Page two holds the outlook");
    expect(pages).toContain("Page three is the appendix");
    expect(pages).not.toContain("North 1200");
    expect(docx).toContain("# Meeting notes");
    expect(docx).toContain("## Action items");
    expect(docx).toMatch(/-\s+Write the migration guide/);
    expect(pptx).toContain("## Slide 1: Roadmap 2026");
    expect(pptx).toContain("Offline documentation");
    expect(pptx).toContain("## Slide 2: Risks");
    expect(xlsx).toContain("## Sheet: Sales");
    expect(xlsx).toContain("| Widget | 42 |");
    expect(xlsx).toContain("## Sheet: Staff");
    expect(xlsx).toContain("| Ada | Compilers |");
    expect(csv).toContain('| Ada | engineer | likes "tabs", and commas |');
    expect(csv).toContain("| Grace | admiral | multi<br>line |");
    expect(epub).toContain("Write the migration guide");
    expect(notebook).toContain("# %% [code] cell:1");
    expect(notebook).toContain("print(total)");
    expect(notebook).toContain("# >>> output\n");
    expect(notebook).toContain("45");
    expect(notebook).toContain("image output 1 (image/png), attached below");
    expect(JSON.stringify(blocks[7].content)).toContain('"type":"image"');
  });

  test("a corrupt PDF, a truncated DOCX and a 2 GB sparse PDF give clear errors, quickly", async () => {
    const ws = project();
    writeFileSync(join(ws.repo, "broken.pdf"), "%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage garbage\n");
    writeFileSync(join(ws.repo, "cut.docx"), new Uint8Array(await Bun.file(join(FIXTURES, "notes.docx")).arrayBuffer()).subarray(0, 2000));
    run(ws.repo, "truncate", "-s", "2G", "huge.pdf");
    const started = Date.now();
    const { results } = await reads(ws, ["broken.pdf", "cut.docx", "huge.pdf"]);
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.text).toContain("broken.pdf is not a readable PDF");
    expect(results[1]!.isError).toBe(true);
    expect(results[1]!.text).toContain("cut.docx is not a readable Word (.docx) document");
    expect(results[2]!.isError).toBe(true);
    expect(results[2]!.text).toContain("huge.pdf is 2.0 GB, over the 50 MB limit for .pdf files");
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe("archives", () => {
  test("a zip and a tgz list as folders; a.zip:inner/path and a.tgz:inner/path read as files, with line selectors", async () => {
    const ws = project();
    mkdirSync(join(ws.repo, "pkg", "src"), { recursive: true });
    writeFileSync(join(ws.repo, "pkg", "src", "main.ts"), Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join("\n"));
    writeFileSync(join(ws.repo, "pkg", "README.md"), "# pkg\nthe package\n");
    run(ws.repo, "python3", "-c", "import shutil; shutil.make_archive('bundle', 'zip', '.', 'pkg')");
    run(ws.repo, "tar", "czf", "bundle.tgz", "pkg");
    const { results } = await reads(ws, ["bundle.zip", "bundle.zip:pkg/src", "bundle.zip:pkg/src/main.ts:10-12", "bundle.tgz:pkg/README.md", "bundle.tgz", "bundle.zip:pkg/nope.txt", "bundle.zip:pkg/../../etc/passwd"]);
    const [zip, folder, member, tarMember, tgz, missing, escape] = results;
    expect(zip!.text).toContain("bundle.zip: (archive folder, 1 entry)\npkg/");
    expect(folder!.text).toContain("main.ts (");
    expect(member!.text).toContain("export const v10 = 10;");
    expect(member!.text).toContain("export const v12 = 12;");
    expect(member!.text).not.toContain("v13 =");
    expect(tarMember!.text).toContain("the package");
    expect(tgz!.text).toContain("pkg/");
    expect(missing!.isError).toBe(true);
    expect(missing!.text).toContain("has no pkg/nope.txt");
    expect(escape!.isError).toBe(true);
    expect(escape!.text).toContain('archive paths may not contain ".."');
  });

  test("a zip bomb is refused by its ratio, a lying member by its declared size; a tar's '..' entry is listed as unsafe and never read", async () => {
    const ws = project();
    // 200 MB of zeros deflates to ~200 KB: a ratio of 1:1000.
    const zeros = new Uint8Array(200 * 1024 * 1024);
    writeFileSync(join(ws.repo, "bomb.zip"), zipOf([{ name: "zeros.txt", data: deflateRawSync(zeros), size: zeros.length }]));
    // A member whose header claims 10 bytes but inflates to 5 MB.
    writeFileSync(join(ws.repo, "liar.zip"), zipOf([{ name: "small.txt", data: deflateRawSync(new Uint8Array(5 * 1024 * 1024)), size: 10 }]));
    run(ws.repo, "python3", "-c", "import tarfile, io\nwith tarfile.open('evil.tar', 'w') as t:\n  for n, d in [('../escape.txt', b'outside'), ('ok.txt', b'inside')]:\n    i = tarfile.TarInfo(n); i.size = len(d); t.addfile(i, io.BytesIO(d))");
    // 300 MB of zeros in one member of a .tgz (about 300 KB), and a 2 GB sparse file named .tar.
    run(ws.repo, "python3", "-c", "import tarfile, io\nclass Z(io.RawIOBase):\n  def __init__(s, n): s.n = n\n  def readable(s): return True\n  def readinto(s, b):\n    k = min(len(b), s.n); b[:k] = bytes(k); s.n -= k; return k\nwith tarfile.open('bomb.tgz', 'w:gz') as t:\n  i = tarfile.TarInfo('zeros.bin'); i.size = 300 * 1024 * 1024; t.addfile(i, io.BufferedReader(Z(i.size)))");
    run(ws.repo, "truncate", "-s", "2G", "sparse.tar");
    const started = Date.now();
    const { results } = await reads(ws, ["bomb.zip", "bomb.zip:zeros.txt", "liar.zip:small.txt", "evil.tar", "evil.tar:ok.txt", "evil.tar:../escape.txt", "bomb.tgz", "sparse.tar"]);
    const [bomb, bombMember, liar, evil, ok, escape, tgzBomb, sparse] = results;
    expect(tgzBomb!.isError).toBe(true);
    expect(tgzBomb!.text).toContain("which is how decompression bombs look");
    expect(sparse!.text).toContain("sparse.tar: is an empty archive folder.");
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(bomb!.text).toContain("zeros.txt (200 MB)");
    expect(bombMember!.isError).toBe(true);
    expect(bombMember!.text).toContain("which is how zip bombs look");
    expect(liar!.isError).toBe(true);
    expect(liar!.text).toContain("unpacks to more than the 10 B its header declares");
    expect(evil!.text).toContain('1 entry leads outside the archive and cannot be read: "../escape.txt"');
    expect(ok!.text).toContain("inside");
    expect(escape!.isError).toBe(true);
    expect(escape!.text).not.toContain("outside\n");
  });
});

describe("document bombs", () => {
  test("a 1 MB DOCX that unpacks to 1 GB, one whose member lies about its size, and PPTX/EPUB bombs are refused quickly, in bounded memory, naming the limit", async () => {
    const ws = project();
    // An honest header: word/document.xml declares its 1 GiB of zeros (about 1 MB packed).
    run(ws.repo, "python3", "-c", "import zipfile\nwith zipfile.ZipFile('bomb.docx', 'w', zipfile.ZIP_DEFLATED) as z:\n  z.writestr('[Content_Types].xml', '<Types/>')\n  with z.open('word/document.xml', 'w') as f:\n    for i in range(1023): f.write(bytes(1 << 20))");
    // The same archive as a deck and a book: the limit holds before any member is looked for.
    for (const name of ["bomb.pptx", "bomb.epub"]) copyFileSync(join(ws.repo, "bomb.docx"), join(ws.repo, name));
    // A header that claims 10 bytes for 100 MB of zeros: only unpacking it shows the lie.
    writeFileSync(join(ws.repo, "liar.docx"), zipOf([{ name: "[Content_Types].xml", data: deflateRawSync(Buffer.from("<Types/>")), size: 8 }, { name: "word/document.xml", data: deflateRawSync(new Uint8Array(100 * 1024 * 1024)), size: 10 }]));
    const rss = join(ws.home, "max-rss-kb");
    const started = Date.now();
    const { results } = await reads(ws, ["bomb.docx", "liar.docx", "bomb.pptx", "bomb.epub"], ["/usr/bin/time", "-f", "%M", "-o", rss]);
    const [docx, liar, pptx, epub] = results;
    expect(docx!.isError).toBe(true);
    expect(docx!.text).toContain("bomb.docx refused: its members unpack to 1023 MB, over the 256 MB limit for one document");
    expect(liar!.isError).toBe(true);
    expect(liar!.text).toContain("unpacks to more than the 10 B its header declares, which is how zip bombs look");
    expect(pptx!.text).toContain("bomb.pptx refused: its members unpack to 1023 MB, over the 256 MB limit");
    expect(epub!.text).toContain("bomb.epub refused: its members unpack to 1023 MB, over the 256 MB limit");
    expect(Date.now() - started).toBeLessThan(30_000);
    // The whole run, model requests included; mammoth alone took 4 GB on the 1 GB one.
    const peakMb = Number(readFileSync(rss, "utf8").trim().split("\n").at(-1)) / 1024;
    expect(peakMb).toBeLessThan(700);
  });
});

/** Live `omp __sqlite-read` children working in `cwd` (a test's own project folder). */
function sqliteChildren(cwd: string): number[] {
  return readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("__sqlite-read") && realpathSync(`/proc/${pid}/cwd`) === realpathSync(cwd);
    } catch {
      return false;
    }
  }).map(Number);
}

const ENDLESS = "app.db?q=WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x%2B1 FROM c) SELECT count(*) FROM c";

describe("SQLite bounds", () => {
  test("VACUUM INTO, ATTACH, load_extension, a setting PRAGMA and a second statement are refused, saying why; no file is written", async () => {
    const ws = project();
    run(ws.repo, "python3", "-c", "import sqlite3\nc = sqlite3.connect('app.db')\nc.execute('create table users (id integer primary key, name text)')\nc.execute(\"insert into users (name) values ('ada')\")\nc.commit()");
    const copy = join(ws.home, "stolen.db");
    const { results } = await reads(ws, [
      `app.db?q=VACUUM INTO '${copy}'`,
      `app.db?q=ATTACH DATABASE '${join(ws.home, "other.db")}' AS o`,
      "app.db?q=SELECT load_extension('/tmp/x.so')",
      "app.db?q=PRAGMA query_only = 0",
      `app.db?q=SELECT 1; VACUUM INTO '${copy}'`,
      "app.db?q=SELECT name, ';vacuum' AS note FROM users",
      "app.db?q=PRAGMA table_info(users)",
    ]);
    const [vacuum, attach, extension, pragma, second, quoted, info] = results.map((r) => r.text);
    expect(vacuum).toContain("app.db?q= refused: VACUUM is not a read");
    expect(attach).toContain("app.db?q= refused: ATTACH is not a read");
    expect(extension).toContain("app.db?q= refused: LOAD_EXTENSION reaches beyond reading this file");
    expect(pragma).toContain("only reporting PRAGMAs run here");
    expect(second).toContain("it holds more than one statement");
    expect(existsSync(copy)).toBe(false);
    expect(existsSync(join(ws.home, "other.db"))).toBe(false);
    expect(quoted).toContain("| ada | ;vacuum |");
    expect(info).toContain("| 1 | name | TEXT |");
  });

  test("a recursive query that never ends is stopped at the time limit, its process killed", async () => {
    const ws = project();
    run(ws.repo, "python3", "-c", "import sqlite3\nsqlite3.connect('app.db').execute('create table t (x)')");
    const started = Date.now();
    const { results } = await reads(ws, [ENDLESS]);
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.text).toContain("app.db: the query ran past 10 s, the time limit for a read, and was stopped");
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(sqliteChildren(ws.repo)).toEqual([]);
  });

  test("SIGTERM to omp stops a running query at once: omp exits 143 and the query's process is gone", async () => {
    const ws = project();
    run(ws.repo, "python3", "-c", "import sqlite3\nsqlite3.connect('app.db').execute('create table t (x)')");
    standin.setScript([{ toolCalls: [{ name: "read", arguments: { path: ENDLESS } }] }, { text: "done" }]);
    const child = spawnOmp(["-p", "--model", MODEL, "go"], { home: ws.home, cwd: ws.repo, env });
    child.stdin.end();
    await eventually(() => (sqliteChildren(ws.repo).length > 0 ? true : undefined), "the query's process to start", 30_000);
    const signalled = Date.now();
    child.kill("SIGTERM");
    expect(await child.exited).toBe(143);
    expect(Date.now() - signalled).toBeLessThan(5000);
    await eventually(() => (sqliteChildren(ws.repo).length === 0 ? true : undefined), "the query's process to be gone", 5000);
  });
});

describe("SQLite", () => {
  test("tables with row counts, a table's rows paged, a read-only query; a write is refused", async () => {
    const ws = project();
    run(ws.repo, "python3", "-c", "import sqlite3\nc = sqlite3.connect('app.db')\nc.execute('create table users (id integer primary key, name text, email text)')\nc.executemany('insert into users (name, email) values (?, ?)', [(f'user{i}', f'u{i}@example.com') for i in range(1, 46)])\nc.execute('create table tags (name text)')\nc.commit()");
    const { results } = await reads(ws, ["app.db", "app.db:users", "app.db:users?offset=40&limit=10", "app.db?q=SELECT name FROM users WHERE id > 43 ORDER BY id", "app.db?q=DELETE FROM users", "app.db:nope"]);
    const [list, table, page, query, write, missing] = results.map((r) => r.text);
    expect(list).toContain("| users | table | 45 |");
    expect(list).toContain("| tags | table | 0 |");
    expect(table).toContain("CREATE TABLE users");
    expect(table).toContain("rows 1-20 of 45");
    expect(table).toContain("| 1 | user1 | u1@example.com |");
    expect(table).toContain("[More rows: read app.db:users?offset=20&limit=20]");
    expect(page).toContain("rows 41-45 of 45");
    expect(page).toContain("| 45 | user45 |");
    expect(query).toContain("| user44 |\n| user45 |");
    expect(write).toContain("app.db?q= refused: DELETE is not a read");
    expect(missing).toContain('app.db has no table "nope". Tables: tags, users.');
  });
});

describe("line selectors", () => {
  test(":N, :A-B and :A+C select lines; an existing file whose name has a colon wins; a bad selector says why", async () => {
    const ws = project();
    writeFileSync(join(ws.repo, "lines.txt"), Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join("\n"));
    writeFileSync(join(ws.repo, "odd:12"), "a file named with a colon\n");
    const { results } = await reads(ws, ["lines.txt:48", "lines.txt:5-7", "lines.txt:10+2", "odd:12", "lines.txt:9-3"]);
    const [from48, range, plus, colon, bad] = results.map((r) => r.text);
    expect(from48).toContain("row 48");
    expect(from48).toContain("row 50");
    expect(from48).not.toContain("row 47");
    expect(range).toMatch(/5\trow 5\n6\trow 6\n7\trow 7/);
    expect(range).toContain("Use offset=8");
    expect(plus).toContain("row 11");
    expect(plus).not.toContain("row 12");
    expect(colon).toContain("a file named with a colon");
    expect(bad).toContain("the end (3) is before the start (9)");
  });
});

/** A zip written the way zip tools write one, with the sizes given (so a test can make a member lie). */
function zipOf(members: { name: string; data: Uint8Array; size: number }[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const name = Buffer.from(member.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(member.data.length, 18);
    local.writeUInt32LE(member.size, 22);
    local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(member.data.length, 20);
    entry.writeUInt32LE(member.size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(member.data));
    central.push(entry, name);
    offset += 30 + name.length + member.data.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}
