// Drives `omp auth login` as a user does: reads the URL it prints and plays the browser.
import { expect } from "bun:test";
import type { Subprocess } from "bun";
import { OMP, cleanEnv } from "./omp.ts";
import { type OAuthStandin, browse } from "./oauth-standin.ts";

export interface LoginRun {
  child: Subprocess<"pipe", "pipe", "pipe">;
  /** Resolves with the first URL omp prints. */
  url: Promise<string>;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

export function startLogin(oauth: OAuthStandin, home: string, provider: string, env: Record<string, string> = {}): LoginRun {
  const child = Bun.spawn([OMP, "auth", "login", provider], { cwd: home, env: cleanEnv(home, { ...oauth.env(), ...env }), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  let stderr = "";
  let found!: (url: string) => void;
  const url = new Promise<string>((resolve) => (found = resolve));
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      const match = /^ {2}(http\S+)$/m.exec(stderr);
      if (match) found(match[1]!);
    }
  })();
  const done = (async () => {
    const stdout = await new Response(child.stdout).text();
    const code = await child.exited;
    await reading;
    return { code, stdout, stderr };
  })();
  return { child, url, done };
}

export async function loginViaBrowser(oauth: OAuthStandin, home: string, provider: string, env: Record<string, string> = {}) {
  const run = startLogin(oauth, home, provider, env);
  const page = await browse(await run.url);
  expect(page.status).toBe(200);
  expect(page.text).toContain("Logged in");
  run.child.stdin.end();
  return run.done;
}


/** A login whose access token expires within the refresh skew, so that its first use refreshes it. */
export async function loginExpiring(oauth: OAuthStandin, home: string, provider: string): Promise<void> {
  oauth.expiresIn = 60;
  try {
    expect((await loginViaBrowser(oauth, home, provider)).code).toBe(0);
  } finally {
    oauth.expiresIn = 3600;
  }
}
