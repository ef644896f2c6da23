import { existsSync } from "node:fs";
import { CredentialStore } from "../auth/store.ts";
import { agentDbPath } from "../paths.ts";

/** The user's GitHub token and where it came from (named in messages; the value never is). */
export interface GithubToken {
  value: string;
  source: string;
}

/** `gh auth token` may wait on a keyring; it gets this long. */
const GH_TIMEOUT_MS = 5000;

let resolved: Promise<GithubToken | undefined> | undefined;

/**
 * The token, looked up once per process: GITHUB_TOKEN, GH_TOKEN, the vault's `github` key
 * (`omp auth add github`), then `gh auth token` when gh is installed. None: requests go without
 * one (public data, a lower rate limit).
 */
export function githubToken(env: Record<string, string | undefined>): Promise<GithubToken | undefined> {
  return (resolved ??= lookUp(env));
}

async function lookUp(env: Record<string, string | undefined>): Promise<GithubToken | undefined> {
  for (const name of ["GITHUB_TOKEN", "GH_TOKEN"]) {
    const value = env[name]?.trim();
    if (value) return { value, source: name };
  }
  const vault = agentDbPath(env as NodeJS.ProcessEnv);
  if (existsSync(vault)) try {
    const store = CredentialStore.open(vault);
    try {
      const value = store.get("github")?.trim();
      if (value) return { value, source: "the vault (omp auth add github)" };
    } finally {
      store.close();
    }
  } catch {
    // No vault, or one omp cannot read: the next source.
  }
  const gh = Bun.which("gh");
  if (!gh) return undefined;
  const host = env.GH_HOST?.trim();
  const proc = Bun.spawn([gh, "auth", "token", ...(host ? ["--hostname", host] : [])], { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: { ...env, GH_PROMPT_DISABLED: "1" } as Record<string, string> });
  const timer = setTimeout(() => proc.kill(), GH_TIMEOUT_MS);
  try {
    const [text, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    const value = text.trim();
    return code === 0 && value && !/\s/.test(value) ? { value, source: "gh auth token" } : undefined;
  } finally {
    clearTimeout(timer);
  }
}
