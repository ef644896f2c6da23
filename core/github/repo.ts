import { GithubError } from "./api.ts";

/** `owner/repo`, as GitHub spells them. */
export interface RepoRef {
  owner: string;
  repo: string;
}

const PART = /^[A-Za-z0-9_.-]{1,100}$/;

/** `owner/repo` from text the model or a URL gave; a GithubError saying the form otherwise. */
export function parseRepo(text: string): RepoRef {
  const [owner, repo, ...rest] = text.trim().replace(/\.git$/, "").split("/");
  if (!owner || !repo || rest.length > 0 || !PART.test(owner) || !PART.test(repo) || owner.startsWith(".") || repo === "." || repo === "..") {
    throw new GithubError("bad-input", `"${text}" is not a repository: give owner/repo (for example octocat/hello-world).`);
  }
  return { owner, repo };
}

/**
 * The repository of the checkout at `cwd`: its `origin` remote (else the first remote) on
 * `webHost`, in https, ssh or scp form. Read from git's config without running anything it names.
 */
export function currentRepo(cwd: string, webHost: string): RepoRef | undefined {
  const result = Bun.spawnSync(["git", "config", "--get-regexp", "^remote\\..*\\.url$"], { cwd, stdout: "pipe", stderr: "ignore", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.exitCode !== 0) return undefined;
  const remotes = result.stdout.toString().trim().split("\n").map((line) => {
    const [key = "", url = ""] = line.split(/\s+/, 2);
    return { name: key.replace(/^remote\.|\.url$/g, ""), url };
  });
  remotes.sort((a, b) => Number(b.name === "origin") - Number(a.name === "origin"));
  const host = webHost.replace(/[.]/g, "\\.");
  const pattern = new RegExp(`^(?:(?:https?|ssh|git)://(?:[^@/]+@)?${host}(?::\\d+)?/|(?:[^@/]+@)?${host}:)([^/]+)/([^/]+?)(?:\\.git)?/?$`, "i");
  for (const remote of remotes) {
    const match = pattern.exec(remote.url);
    if (match) return { owner: match[1]!, repo: match[2]! };
  }
  return undefined;
}

/** `repo` when given, else the checkout's; a GithubError saying what to pass when neither is known. */
export function repoOrCurrent(repo: string | undefined, cwd: string, webHost: string): RepoRef {
  if (repo) return parseRepo(repo);
  const current = currentRepo(cwd, webHost);
  if (!current) throw new GithubError("bad-input", `GitHub repository context is unavailable: ${cwd} has no ${webHost} remote. Pass the repository explicitly (owner/repo).`);
  return current;
}
