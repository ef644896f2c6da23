import { gitSync } from "../git/run.ts";
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

export interface Remote {
  name: string;
  url: string;
}

/** The checkout's remotes, `origin` first; read from git's config without running anything it names. */
export function remotes(cwd: string): Remote[] {
  const result = gitSync(["config", "--get-regexp", "^remote\\..*\\.url$"], { cwd, env: { GIT_CONFIG_NOSYSTEM: "1" }, timeoutMs: 10_000 });
  if (!result.ok) return [];
  const list = result.out.toString().trim().split("\n").filter(Boolean).map((line) => {
    const [key = "", url = ""] = line.split(/\s+/, 2);
    return { name: key.replace(/^remote\.|\.url$/g, ""), url };
  });
  return list.sort((a, b) => Number(b.name === "origin") - Number(a.name === "origin"));
}

/** The repository a remote URL names on `webHost`, in https, ssh or scp form. */
export function repoOfUrl(url: string, webHost: string): RepoRef | undefined {
  const host = webHost.replace(/[.]/g, "\\.");
  const match = new RegExp(`^(?:(?:https?|ssh|git)://(?:[^@/]+@)?${host}(?::\\d+)?/|(?:[^@/]+@)?${host}:)([^/]+)/([^/]+?)(?:\\.git)?/?$`, "i").exec(url);
  return match ? { owner: match[1]!, repo: match[2]! } : undefined;
}

/** The repository of the checkout at `cwd`: its `origin` remote (else the first remote) on `webHost`. */
export function currentRepo(cwd: string, webHost: string): RepoRef | undefined {
  for (const remote of remotes(cwd)) {
    const ref = repoOfUrl(remote.url, webHost);
    if (ref) return ref;
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
