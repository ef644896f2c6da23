// MCP servers' state in the interactive mode's status line while they start, and `/mcp auth`
// logging in to a remote server that answered 401 (this test is the browser omp opens).
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { modelRequests, toolResultsOf } from "../support/agent-harness.ts";
import { edgeServer, fromServer, writeUserMcp } from "../support/mcp/fixtures.ts";
import { approveElsewhere, approveInBrowser, startOAuthServer } from "../support/mcp/oauth.ts";
import { tempDir } from "../support/omp.ts";
import type { Turn } from "../support/standin/index.ts";
import { eventually, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(120_000);

const ready = readySessions();

/** The status line: the row that ends in the context use. */
function statusLine(screen: string): string {
  return screen.split("\n").findLast((row) => /ctx \d+%\s*$/.test(row)) ?? "";
}

describe("MCP in the interactive status line and /mcp auth", () => {
  test("the status line counts servers while they start, shows a failure, and redraws only when the count changes", async () => {
    const home = tempDir("omp-tty-home-");
    writeUserMcp(home, {
      quick: edgeServer("basic"),
      slow: edgeServer("basic", { env: { EDGE_START_DELAY_MS: "5000" }, startTimeout: 60_000 }),
      broken: { command: "/nonexistent/omp-no-such-mcp-server" },
    });
    const s = await ready({ home });
    const { tty } = s;
    await tty.waitFor("MCP 1/3 starting… (1 failed)", 30_000);
    const recording = join(tempDir("omp-tty-rec-"), "out");
    writeFileSync(recording, "");
    tty.record(recording);
    const final = await tty.waitFor("MCP 2/3 (1 failed)", 30_000);
    // Settled: nothing more to draw for a while.
    await Bun.sleep(1500);
    tty.record();
    expect(statusLine(final)).toContain("MCP 2/3 (1 failed)");
    expect(final).toContain('MCP server "broken" failed: cannot run "/nonexistent/omp-no-such-mcp-server":');
    // While the slow server started, the line was drawn once more: when it came up.
    const drawn = readFileSync(recording, "utf8");
    expect(drawn.match(/MCP \d/g) ?? []).toEqual(["MCP 2"]);
  });

  test("a server that answered 401 shows as needing auth; /mcp auth opens the browser, takes the code, reconnects; its tools then work", async () => {
    const { s, auth, opened } = await needsAuthSession([{ toolCalls: [{ id: "g1", name: "mcp__secure__greet", arguments: { name: "omp" } }] }, { text: "greeted" }]);
    const { tty } = s;
    expect(statusLine(await tty.waitFor("MCP 0/1 (1 needs auth)"))).toContain("MCP 0/1 (1 needs auth)");
    tty.type("/mcp");
    tty.press("Enter");
    await tty.waitFor("secure (http): needs auth: /mcp auth secure logs in");

    tty.type("/mcp auth secure");
    tty.press("Enter");
    await tty.waitFor("To log in to secure, open this URL in a browser:");
    const url = await openedUrl(opened);
    expect(url).toStartWith(`${auth.url.replace(/\/mcp$/, "")}/authorize?`);
    expect(url).toContain("code_challenge_method=S256");
    // The printed URL is the opened one (its start; the transcript wraps long lines).
    expect(tty.screen()).toContain(url.slice(0, 60));
    expect(await approveInBrowser(url)).toContain("omp: logged in");
    await tty.waitFor("Logged in. secure (http): ready, 3 tools", 30_000);
    expect(statusLine(await tty.waitFor(/MCP 1 /))).toMatch(/MCP 1 /);

    tty.type("greet omp");
    tty.press("Enter");
    await tty.waitFor("greeted", 30_000);
    expect(toolResultsOf("anthropic-messages", modelRequests(s.standin)[1]!.body).at(-1)!.text).toBe(fromServer("secure", "Hello, omp!"));
  });

  test("the browser on another machine: /mcp auth paste <the URL it ended on> finishes the login", async () => {
    const { s, opened } = await needsAuthSession();
    const { tty } = s;
    tty.type("/mcp auth secure");
    tty.press("Enter");
    await tty.waitFor("With the browser on another machine: /mcp auth paste <the URL it ends on>");
    const landed = await approveElsewhere(await openedUrl(opened));
    tty.type(`/mcp auth paste ${landed}`);
    tty.press("Enter");
    await tty.waitFor("Logged in. secure (http): ready, 3 tools", 30_000);
    tty.type("/mcp auth paste http://127.0.0.1:9/callback?code=late");
    tty.press("Enter");
    await tty.waitFor("No MCP login is waiting for a URL.");
  });
});

/**
 * omp with one remote server it has no tokens for, already said to need a login; the user's
 * "browser" is an opener on PATH that notes the URL it was asked to open.
 */
async function needsAuthSession(script: Turn[] = []) {
  const auth = await startOAuthServer();
  afterAll(() => auth.stop());
  const home = tempDir("omp-tty-home-");
  writeUserMcp(home, { secure: { type: "http", url: auth.url } });
  const bin = tempDir("omp-tty-bin-");
  const opened = join(bin, "opened-url");
  writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
  chmodSync(join(bin, "xdg-open"), 0o755);
  const s = await ready({ home, cols: 120, env: { DISPLAY: ":0", PATH: `${bin}:${process.env.PATH}` }, script });
  await s.tty.waitFor('MCP server "secure" needs you to log in: run omp mcp login secure (in omp: /mcp auth secure)', 30_000);
  return { s, auth, opened };
}

function openedUrl(opened: string): Promise<string> {
  return eventually(() => (existsSync(opened) ? readFileSync(opened, "utf8") : undefined), "the browser to be opened");
}
