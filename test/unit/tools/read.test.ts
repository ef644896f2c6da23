import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READ_MAX_IMAGE_BYTES, readTool } from "../../../core/tools/read.ts";
import { context, imageOf, scratch, textOf } from "./helpers.ts";

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** A JPEG header as far as the frame size: SOI, an APP0 segment, then SOF0 for 640×480. */
const JPEG_640X480 = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9,
]);

async function read(dir: string, input: { path: string; offset?: number; limit?: number }) {
  return readTool.execute(input, context(dir));
}

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";

describe("read: text", () => {
  test("numbers lines like cat -n, 1-based", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "alpha\nbeta\n\tgamma\n");
    const result = await read(dir, { path: "a.txt" });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("1\talpha\n2\tbeta\n3\t\tgamma");
    expect(result.details).toMatchObject({ kind: "text", startLine: 1, endLine: 3, totalLines: 3, truncated: false });
  });

  test("offset and limit select a page and say where to continue", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), lines(10));
    const text = textOf(await read(dir, { path: "a.txt", offset: 3, limit: 2 }));
    expect(text.split("\n").slice(0, 2)).toEqual(["3\tline 3", "4\tline 4"]);
    expect(text).not.toContain("line 5");
    expect(text).toContain("[Showing lines 3-4 of 10. Use offset=5 to read more.]");
  });

  test("the last line counts without a trailing newline, and no note when all is shown", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "one\ntwo");
    const result = await read(dir, { path: "a.txt", offset: 2 });
    expect(textOf(result)).toBe("2\ttwo");
    expect(result.details).toMatchObject({ totalLines: 2 });
  });

  test("defaults to 2000 lines", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "big.txt"), lines(2500));
    const result = await read(dir, { path: "big.txt" });
    const text = textOf(result);
    expect(text).toContain("\n2000\tline 2000\n");
    expect(text).not.toContain("line 2001");
    expect(text).toContain("[Showing lines 1-2000 of 2500. Use offset=2001 to read more.]");
    expect(result.details).toMatchObject({ endLine: 2000, totalLines: 2500, truncated: true });
  });

  test("pages correctly across read chunks in a large file", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "big.txt"), lines(30_000, (i) => `row ${i} ${"z".repeat(i % 50)}`));
    const text = textOf(await read(dir, { path: "big.txt", offset: 25_000, limit: 3 }));
    expect(text.split("\n").slice(0, 3)).toEqual([
      `25000\trow 25000 ${"z".repeat(0)}`,
      `25001\trow 25001 ${"z".repeat(1)}`,
      `25002\trow 25002 ${"z".repeat(2)}`,
    ]);
    expect(text).toContain("of 30000");
  });

  test("a file read whole and one streamed in chunks give the same pages", async () => {
    const dir = scratch();
    // Multi-byte characters and a cut line straddle the 64 KB chunks; CRLF lines, no final newline.
    const body = lines(9_000, (i) => (i % 997 === 0 ? `é${"ü".repeat(3_000)}` : `row ${i} ${"ß".repeat(i % 7)}${i % 3 === 0 ? "\r" : ""}`));
    writeFileSync(join(dir, "small.txt"), `${body}tail`);
    // The same lines, then enough more to be streamed (over 1 MiB).
    writeFileSync(join(dir, "large.txt"), `${body}tail\n${lines(12_000, () => "y".repeat(90))}`);
    for (const page of [{}, { offset: 996, limit: 3 }, { offset: 4_000, limit: 2_500 }, { offset: 8_999, limit: 3 }]) {
      const small = textOf(await read(dir, { path: "small.txt", ...page }));
      const large = textOf(await read(dir, { path: "large.txt", ...page }));
      const shownLines = (text: string) => text.split("\n\n[")[0];
      expect(shownLines(large)).toBe(shownLines(small));
    }
    expect(textOf(await read(dir, { path: "small.txt", offset: 9_001 }))).toBe("9001\ttail");
    expect(textOf(await read(dir, { path: "large.txt", offset: 9_001, limit: 1 }))).toStartWith("9001\ttail\n");
  });

  test("a file read whole and one streamed give the same pages for odd bytes: marks, broken UTF-8, lines past 8,000 bytes", async () => {
    const dir = scratch();
    const odd = [
      Buffer.from("\xEF\xBB\xBFfirst line after a byte-order mark\n", "latin1"),
      Buffer.from("\xEF\xBB\xBFa mark at a later line's start\r\n", "latin1"),
      Buffer.from("a mark \xEF\xBB\xBF inside\n", "latin1"),
      Buffer.from([0xe2, 0x82, 0x0a]), // a character broken by the newline
      Buffer.from([0x61, 0xff, 0xfe, 0x0d, 0x0a]),
      Buffer.from("\n\r\n\r\r\n"),
      Buffer.from(`${"€".repeat(2_001)}\n`), // over 2,000 chars, under 8,000 bytes
      Buffer.from(`${"😀".repeat(2_100)}\n`), // over 8,000 bytes
      Buffer.concat([Buffer.from("x".repeat(7_999)), Buffer.from([0xe2, 0x82, 0xac, 0x0a])]), // a character across the 8,000th byte
      Buffer.from(`${"\u00e9".repeat(1_999)}\r\n`),
    ];
    const body = Buffer.concat([...odd, ...odd, Buffer.from("no newline at the end")]);
    writeFileSync(join(dir, "small.txt"), body);
    writeFileSync(join(dir, "large.txt"), Buffer.concat([body, Buffer.from(`\n${lines(12_000, () => "y".repeat(90))}`)]));
    const shownLines = (text: string) => text.split("\n\n[")[0];
    for (const page of [{ limit: 25 }, { offset: 2, limit: 5 }, { offset: 8, limit: 1 }, { offset: 11, limit: 15 }]) {
      const small = textOf(await read(dir, { path: "small.txt", ...page }));
      const large = textOf(await read(dir, { path: "large.txt", ...page }));
      expect(shownLines(large)).toBe(shownLines(small));
    }
    const whole = await read(dir, { path: "small.txt" });
    expect(textOf(whole)).toStartWith("1\tfirst line after a byte-order mark\n2\ta mark at a later line's start\n3\ta mark \uFEFF inside\n4\t\uFFFD\n");
    expect(textOf(whole)).toContain("\n[6 lines were longer than 2000 chars");
    expect(whole.details).toMatchObject({ totalLines: 25 });
  });

  test("cuts lines over 2000 chars with a marker", async () => {
    const dir = scratch();
    const long = "a".repeat(1990) + "b".repeat(3010);
    writeFileSync(join(dir, "long.txt"), `short\n${long}\nend\n`);
    const text = textOf(await read(dir, { path: "long.txt" }));
    const shown = text.split("\n")[1]!;
    expect(shown.startsWith(`2\t${"a".repeat(1990)}${"b".repeat(10)}…`)).toBe(true);
    expect(shown).not.toContain("b".repeat(11));
    expect(shown).toContain("line cut at 2000 chars");
    expect(text).toContain("3\tend");
    expect(text).toContain("1 line was longer than 2000 chars");
  });

  test("a page of huge lines stops at the output budget and says where to continue", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "wide.txt"), lines(1000, () => "w".repeat(1900)));
    const result = await read(dir, { path: "wide.txt" });
    const text = textOf(result);
    expect(text.length).toBeLessThan(250_000);
    const details = result.details as { endLine: number };
    expect(details.endLine).toBeLessThan(1000);
    expect(text).toContain(`(output size limit reached). Use offset=${details.endLine + 1} to read more.`);
  });

  test("CRLF files are shown without carriage returns", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "win.txt"), "a\r\nb\r\n");
    expect(textOf(await read(dir, { path: "win.txt" }))).toBe("1\ta\n2\tb");
  });

  test("an offset past the end is an error naming the line count", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), lines(3));
    const result = await read(dir, { path: "a.txt", offset: 10 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("offset 10 is past the end of a.txt, which has 3 lines");
  });

  test("an empty file says so", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "empty.txt"), "");
    const result = await read(dir, { path: "empty.txt" });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("empty.txt is empty (0 lines).");
  });

  test("absolute paths work from any cwd", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.txt"), "x\n");
    const result = await readTool.execute({ path: join(dir, "a.txt") }, context("/"));
    expect(textOf(result)).toBe("1\tx");
  });
});

describe("read: directories", () => {
  test("lists entries sorted with / on directories", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, "b.txt"), "");
    writeFileSync(join(dir, "a.txt"), "");
    const result = await read(dir, { path: "." });
    expect(textOf(result)).toBe("./ (4 entries)\n.git/\na.txt\nb.txt\nsrc/");
    expect(result.details).toMatchObject({ kind: "directory", entries: 4 });
  });

  test("caps long listings with a note and pages with offset", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "many"));
    for (let i = 0; i < 600; i++) writeFileSync(join(dir, "many", `f${String(i).padStart(3, "0")}`), "");
    const first = textOf(await read(dir, { path: "many" }));
    expect(first).toContain("f499");
    expect(first).not.toContain("f500");
    expect(first).toContain("[Showing entries 1-500 of 600. Use offset=501 to see more");
    const second = textOf(await read(dir, { path: "many", offset: 501 }));
    expect(second).toContain("f500");
    expect(second).toContain("f599");
    expect(second).not.toContain("f499");
  });
});

describe("read: binary and images", () => {
  test("a file with NUL bytes is described, not dumped", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "prog"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0x41, 0x42]));
    const result = await read(dir, { path: "prog" });
    const text = textOf(result);
    expect(text).toContain("prog is a binary file (ELF executable or library, 12 B)");
    expect(text).not.toContain("AB");
    expect(result.details).toMatchObject({ kind: "binary" });
  });

  test("known binary extensions are not shown even when the bytes look like text", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "program.exe"), "MZ plain looking");
    const text = textOf(await read(dir, { path: "program.exe" }));
    expect(text).toContain("binary file (");
    expect(text).not.toContain("plain looking");
    // A zip is read as a folder now; one that is not really a zip says so instead of showing its bytes.
    writeFileSync(join(dir, "archive.zip"), "PK\x03\x04 plain looking");
    const zip = textOf(await read(dir, { path: "archive.zip" }));
    expect(zip).toContain("archive.zip is not a readable zip archive");
    expect(zip).not.toContain("plain looking");
  });

  test("PNG comes back as base64 image content with its size", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "dot.png"), PNG_1X1);
    const result = await read(dir, { path: "dot.png" });
    const image = imageOf(result);
    expect(image).toEqual({ type: "image", data: PNG_1X1.toString("base64"), mimeType: "image/png" });
    expect(textOf(result)).toBe(`dot.png: PNG image, 1×1, ${PNG_1X1.length} B`);
  });

  test("the format comes from the bytes, not the extension", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "photo.png"), JPEG_640X480);
    const result = await read(dir, { path: "photo.png" });
    expect(imageOf(result)?.mimeType).toBe("image/jpeg");
    expect(textOf(result)).toContain("JPEG image, 640×480");
  });

  test("GIF and WebP are images too", async () => {
    const dir = scratch();
    const gif = Buffer.from("GIF89a\x02\x00\x03\x00\x00\x00\x00;", "latin1");
    writeFileSync(join(dir, "a.gif"), gif);
    const webp = Buffer.alloc(30);
    webp.write("RIFF", 0, "latin1");
    webp.writeUInt32LE(22, 4);
    webp.write("WEBPVP8L", 8, "latin1");
    webp.writeUInt32LE(13, 16);
    webp[20] = 0x2f;
    webp.writeUInt32LE((9 - 1) | ((7 - 1) << 14), 21);
    writeFileSync(join(dir, "b.webp"), webp);
    expect(imageOf(await read(dir, { path: "a.gif" }))?.mimeType).toBe("image/gif");
    expect(textOf(await read(dir, { path: "a.gif" }))).toContain("GIF image, 2×3");
    expect(imageOf(await read(dir, { path: "b.webp" }))?.mimeType).toBe("image/webp");
    expect(textOf(await read(dir, { path: "b.webp" }))).toContain("WEBP image, 9×7");
  });

  test("images over the size cap are refused without content", async () => {
    const dir = scratch();
    const big = Buffer.alloc(READ_MAX_IMAGE_BYTES + 1);
    PNG_1X1.copy(big);
    writeFileSync(join(dir, "huge.png"), big);
    const result = await read(dir, { path: "huge.png" });
    expect(result.isError).toBe(true);
    expect(imageOf(result)).toBeUndefined();
    expect(textOf(result)).toContain("too large to attach");
  });
});

describe("read: missing files", () => {
  test("names the path and suggests a similarly named file", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "config.json"), "{}");
    const result = await read(dir, { path: "confg.json" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("File not found: confg.json. Did you mean config.json?");
  });

  test("suggests a file with another extension or case", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "index.ts"), "");
    expect(textOf(await read(dir, { path: "index.js" }))).toContain("Did you mean index.ts?");
    writeFileSync(join(dir, "README.md"), "");
    expect(textOf(await read(dir, { path: "readme.md" }))).toContain("Did you mean README.md?");
  });

  test("repairs a typo in a directory component", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "src", "util"), { recursive: true });
    writeFileSync(join(dir, "src", "util", "strings.ts"), "");
    expect(textOf(await read(dir, { path: "src/utils/strings.ts" }))).toContain("Did you mean src/util/strings.ts?");
  });

  test("says nothing is similar when nothing is", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "zebra.txt"), "");
    const text = textOf(await read(dir, { path: "completely-different.md" }));
    expect(text).toBe("File not found: completely-different.md");
    const nested = textOf(await read(dir, { path: "nope/deeper/x.md" }));
    expect(nested).toBe("File not found: nope/deeper/x.md (directory nope/deeper does not exist either)");
  });
});
