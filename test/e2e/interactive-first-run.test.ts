// The interactive mode's first run with no credential at all, in a real terminal (tmux): instead
// of exiting it offers set-up, stores the pasted key in the vault (or logs in with a subscription
// against the OAuth stand-in), and carries on to the prompt.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { browse, startOAuthStandin } from "../support/oauth-standin.ts";
import { startStandin } from "../support/standin/index.ts";
import { Tty } from "../support/tty-tmux.ts";
import { READY } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const GOOD_KEY = "sk-ant-firstrun-0123456789abcdef";
// This one takes only the good key, as Anthropic would: the set-up must check a key before storing it.
const keyed = await startStandin({ script: [{ text: "Hello from the stored key." }], apiKeys: [GOOD_KEY] });
const standin = await startStandin();
const oauth = await startOAuthStandin();
afterAll(() => {
  keyed.close();
  standin.close();
  oauth.close();
});

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

describe("first run", () => {
  test("no key and no local server: set-up takes a pasted key into the vault, then the session starts on it", async () => {
    const home = tempDir("omp-first-run-home-");
    const cwd = tempDir("omp-first-run-project-");
    const tty = Tty.start({ home, cwd, env: { ANTHROPIC_BASE_URL: keyed.url, OMP_RETRY_BASE_MS: "20", OMP_NO_UPDATE_CHECK: "1" } });
    try {
      await tty.waitFor("omp has no model to use yet");
      expect(tty.screen()).toContain("paste an API key for Anthropic");
      tty.type("1");
      tty.press("Enter");
      // Typed the moment the prompt shows: echo is already off by then, so nothing of the key is shown.
      await tty.waitFor("input hidden");
      tty.type("sk-ant-mistyped-0123456789abcdef");
      tty.press("Enter");
      await tty.waitFor("refused that key");
      expect(tty.screen().replaceAll("\n", "")).toContain("it was not stored");
      expect(tty.screen()).not.toContain("mistyped");
      tty.type("1");
      tty.press("Enter");
      await tty.waitFor((screen) => screen.split("input hidden").length === 3);
      tty.type(GOOD_KEY);
      tty.press("Enter");
      await tty.waitFor(READY);
      expect(tty.screen()).not.toContain("firstrun");
      const db = join(home, ".omp", "agent", "agent.db");
      expect(existsSync(db)).toBe(true);
      expect(statSync(db).mode & 0o777).toBe(0o600);
      tty.type("hi");
      tty.press("Enter");
      await tty.waitFor("Hello from the stored key.");
      const request = keyed.requests.find((r) => r.method === "POST")!;
      expect(request.headers["x-api-key"]).toBe(GOOD_KEY);
      // The key was checked against the model list before it was stored.
      expect(keyed.requests.filter((r) => r.method === "GET" && r.path === "/v1/models").map((r) => r.headers["x-api-key"])).toEqual(["sk-ant-mistyped-0123456789abcdef", GOOD_KEY]);
    } finally {
      tty.kill();
    }
  });

  // The browser finishes the login while omp waits at the paste prompt (that read must end and leave
  // stdin to the session), or, with the callback port taken, the redirect URL is pasted there.
  for (const way of ["browser", "paste"] as const) {
    test(`no key and no local server: set-up logs in with a subscription (${way}), then the session starts on the OAuth login`, async () => {
      const home = tempDir("omp-first-run-home-");
      const cwd = tempDir("omp-first-run-project-");
      standin.setScript([{ text: `Hello from the subscription (${way}).` }]);
      const blocker = way === "paste" ? Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") }) : undefined;
      const port = blocker?.port ?? freePort();
      const env = { ...oauth.env(), OMP_OAUTH_ANTHROPIC_CALLBACK_PORT: String(port), OMP_NO_BROWSER: "1", ANTHROPIC_BASE_URL: standin.url, OMP_RETRY_BASE_MS: "20", OMP_NO_UPDATE_CHECK: "1" };
      // Wide enough that the authorize URL is on one line of the screen.
      const tty = Tty.start({ home, cwd, env, cols: 1000 });
      try {
        await tty.waitFor("omp has no model to use yet");
        expect(tty.screen()).toContain("l) log in with a subscription");
        tty.type("l");
        tty.press("Enter");
        await tty.waitFor("Log in to which?");
        expect(tty.screen()).toContain("Anthropic (Claude Pro/Max)");
        tty.type("1");
        tty.press("Enter");
        await tty.waitFor("Paste the redirect URL or code");
        const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)/.exec(tty.screen())![1]!;
        if (way === "browser") {
          expect((await browse(url)).status).toBe(200);
        } else {
          expect(tty.screen()).toContain(`port ${port} is not free`);
          const redirect = (await fetch(url, { redirect: "manual" })).headers.get("location")!;
          expect(redirect).toStartWith(`http://localhost:${port}/callback?code=`);
          tty.type(redirect);
          tty.press("Enter");
        }
        await tty.waitFor(READY);
        expect(tty.history()).toContain("logged in to Anthropic (Claude Pro/Max) as user@example.com");
        const before = standin.requests.filter((r) => r.method === "POST").length;
        tty.type("hi");
        tty.press("Enter");
        await tty.waitFor(`Hello from the subscription (${way}).`);
        const request = standin.requests.filter((r) => r.method === "POST")[before]!;
        expect(request.headers.authorization).toBe(`Bearer ${oauth.issued.at(-1)!.access}`);
        expect(request.headers["x-api-key"]).toBeUndefined();
      } finally {
        tty.kill();
        blocker?.stop(true);
      }
    });
  }
});
