// OAuth fixtures for the MCP tests: our refreshing OAuth server (oauth-server.ts) started on
// loopback, and `omp mcp login` driven to the end with this test as the browser.
import type { Subprocess } from "bun";
import { join } from "node:path";
import { type AgentRunOptions, spawnOmp } from "../agent-harness.ts";
import { freePort } from "./fixtures.ts";

const OAUTH_SERVER = join(import.meta.dir, "oauth-server.ts");

/** Reads `stream` to the end in the background (a server that logs must not block), resolving when `seen` shows `until`. */
export async function readUntil(stream: ReadableStream<Uint8Array>, until: (seen: string) => boolean): Promise<{ seen: string; rest: Promise<string> }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!until(seen)) {
    const { value, done } = await reader.read();
    if (done) return { seen, rest: Promise.resolve(seen) };
    seen += decoder.decode(value);
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return seen;
      seen += decoder.decode(value);
    }
  })();
  return { seen, rest };
}

export interface OAuthServer {
  url: string;
  stats(): Promise<{ refreshes: number; refreshToken: string | null }>;
  stop(): void;
}

/** Starts oauth-server.ts on a free loopback port; its MCP endpoint is `url`. */
export async function startOAuthServer(): Promise<OAuthServer> {
  const port = freePort();
  const child: Subprocess = Bun.spawn([process.execPath, OAUTH_SERVER], { env: { ...process.env, PORT: String(port) }, stdout: "pipe", stderr: "inherit" });
  const { seen } = await readUntil(child.stdout as ReadableStream<Uint8Array>, (text) => text.includes(`listening on ${port}`));
  if (!seen.includes("listening")) throw new Error(`the OAuth test server did not start: ${seen}`);
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    stats: async () => (await fetch(`${base}/test/stats`)).json() as Promise<{ refreshes: number; refreshToken: string | null }>,
    stop: () => child.kill(),
  };
}

/**
 * The browser's part of a login: opens the authorize URL (the server approves at once) and
 * follows the redirect to omp's loopback callback; returns the page omp answers with.
 */
export async function approveInBrowser(authorizeUrl: string): Promise<string> {
  return (await fetch(authorizeUrl)).text();
}

/**
 * A browser on another machine: it approves, and ends on omp's loopback callback URL, which it
 * cannot open there; returns that URL, for the user to paste.
 */
export async function approveElsewhere(authorizeUrl: string): Promise<string> {
  const response = await fetch(authorizeUrl, { redirect: "manual" });
  const landed = response.headers.get("location");
  if (!landed) throw new Error(`the authorize step did not redirect (${response.status})`);
  return landed;
}

/** `omp mcp login <name>` started, up to the URL it prints; stdin stays open when `keepStdin`. */
export async function startLogin(name: string, options: AgentRunOptions, keepStdin = false) {
  const login = spawnOmp(["mcp", "login", name], options);
  if (!keepStdin) login.stdin.end();
  const { seen, rest } = await readUntil(login.stderr, (text) => /open this URL in a browser:\n\S+\n/.test(text));
  const authorizeUrl = /open this URL in a browser:\n(\S+)/.exec(seen)?.[1];
  if (!authorizeUrl) throw new Error(`omp mcp login printed no URL: ${seen}`);
  return { login, authorizeUrl, stderr: rest };
}

/** `omp mcp login <name>` run to the end, this test acting as the browser. */
export async function loginWithBrowser(name: string, options: AgentRunOptions): Promise<{ code: number; stdout: string; stderr: string; authorizeUrl: string; page: string }> {
  const { login, authorizeUrl, stderr } = await startLogin(name, options);
  const page = await approveInBrowser(authorizeUrl);
  const code = await login.exited;
  return { code, stdout: await new Response(login.stdout).text(), stderr: await stderr, authorizeUrl, page };
}
