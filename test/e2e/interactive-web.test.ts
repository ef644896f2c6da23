// web_fetch, web_search's absence and document reads in the interactive mode: a loopback fetch
// asks in the approval prompt, the rendered blocks say what was fetched or read and how much.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { messagesWhen, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const ready = readySessions();
const FIXTURES = join(import.meta.dir, "..", "fixtures");

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(readFileSync(join(FIXTURES, "web", "docs-page.html")), { headers: { "content-type": "text/html; charset=utf-8" } }),
});
afterAll(() => server.stop(true));

test("a loopback web_fetch asks first, then renders its block; a PDF read renders as a document read", async () => {
  const url = `${server.url.href}docs/streams`;
  const s = await ready({
    script: [{ toolCalls: [{ name: "web_fetch", arguments: { url } }, { name: "read", arguments: { path: "report.pdf:2" } }] }, { text: "Fetched and read." }],
  });
  copyFileSync(join(FIXTURES, "documents", "report.pdf"), join(s.cwd, "report.pdf"));
  s.tty.type("look it up");
  s.tty.press("Enter");
  await s.tty.waitFor("Allow web_fetch?");
  expect(s.tty.screen()).toContain("a host you have not named");
  expect(s.tty.screen()).toContain("2. Yes, and don't ask again for requests to 127.0.0.1 in this project");
  s.tty.press("y");
  const screen = await s.tty.waitFor("Fetched and read.");
  expect(screen).toMatch(new RegExp(`✓ web_fetch ${url.replace(/[.?]/g, "\\$&")} lines 1–\\d+ of \\d+`));
  expect(screen).toContain("✓ read report.pdf:2");
  const results = (await messagesWhen(s, 4)).filter((m) => m.role === "toolResult").map((m) => m.text);
  expect(results[0]).toContain("```ts");
  expect(results[1]).toContain("Page two holds the outlook");
});
