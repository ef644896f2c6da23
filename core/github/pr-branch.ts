import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { gitSync, gitText, type GitOptions } from "../git/run.ts";
import { checkEgress } from "../permissions/egress.ts";
import { firstPrivate, resolveHost } from "../web/address.ts";
import type { ToolContext } from "../tools/types.ts";
import { repositoryRoot, worktreesRoot } from "../worktree/worktrees.ts";
import { GithubError, githubApi, githubJson } from "./api.ts";
import { parseRepo, remotes, repoOfUrl, type RepoRef } from "./repo.ts";

/**
 * The original's pr_checkout and pr_push: a pull request's head fetched (`refs/pull/<N>/head` from
 * the base repository's remote) into the branch `pr-<N>` and its own worktree under `~/.omp/wt`,
 * with where to push recorded in the branch's git config (the original's keys), which pr_push reads
 * back to push to the PR head's repository and branch. Every git call is the safe runner's; only
 * the fetch and the push reach a transport, after the egress policy has passed the remote's host.
 */

const TIMEOUT_MS = 120_000;
const TOOL = "github";

interface PullJson {
  number: number;
  title?: string;
  html_url?: string;
  maintainer_can_modify?: boolean;
  head?: { ref?: string; sha?: string; repo?: { full_name?: string; clone_url?: string; ssh_url?: string; owner?: { login?: string } } | null };
  base?: { repo?: { full_name?: string } };
}

export interface PrCheckout {
  number: number;
  title: string;
  url: string;
  branch: string;
  headSha: string;
  worktreePath: string;
  reused: boolean;
  remote: string;
  remoteBranch: string;
  crossRepository: boolean;
}

const slug = (ref: RepoRef) => `${ref.owner}/${ref.repo}`;
const must = (cwd: string, args: string[], what: string, options: GitOptions = {}) => gitText(args, { cwd, timeoutMs: TIMEOUT_MS, what, ...options }).trim();
const branchConfig = (root: string, branch: string, key: string) => {
  const result = gitSync(["config", "--get", `branch.${branch}.${key}`], { cwd: root, timeoutMs: TIMEOUT_MS });
  return result.ok ? result.out.toString().trim() : undefined;
};

/**
 * The remote's host passes the egress policy before git reaches it, as any other request's: https,
 * ssh and scp-form URLs name one; a local path or file:// URL reaches no host. A remote is the
 * repository's configuration, which the model may have written: one on a private, loopback or
 * link-local address still needs allowHosts or an approval.
 */
async function allowRemote(context: ToolContext, url: string, what: string): Promise<void> {
  const parsed = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?/i.exec(url) ?? /^(?:[^@/:]+@)?([^:/]{2,}):(?!\/\/)/.exec(url);
  if (!parsed || /^file:/i.test(url)) return;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase() ?? "ssh";
  const host = parsed[1]!.replace(/^\[|\]$/g, "");
  const port = parsed[2] ?? (scheme === "https" ? "443" : scheme === "http" ? "80" : scheme === "git" ? "9418" : "22");
  // A name the resolver does not know is one only the user's ssh configuration can give an address.
  const privateAddress = firstPrivate(await resolveHost(host).catch(() => []));
  const outcome = await checkEgress(context.egress, { toolName: TOOL, host, port, what, configured: "this repository's git remotes", ...(privateAddress ? { privateAddress } : {}) });
  if (!outcome.allow) throw new GithubError("network", outcome.message);
}

/** Every URL git reaches for `remote` (a fetch, or a push), with `url.<base>.insteadOf` applied as git applies it. */
function remoteUrls(root: string, remote: string, push: boolean): string[] {
  return must(root, ["remote", "get-url", "--all", ...(push ? ["--push"] : []), remote], `reading the remote ${remote}`).split("\n").filter(Boolean);
}

/** `7`, `#7`, a PR URL or a branch name → the PR's number in `base` (a branch is looked up among open PRs). */
async function prNumber(context: ToolContext, base: RepoRef, given: string | undefined, cwd: string): Promise<{ repo: RepoRef; number: number }> {
  const text = given?.trim() || must(cwd, ["rev-parse", "--abbrev-ref", "HEAD"], "finding the current branch");
  const url = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(text);
  if (url) return { repo: parseRepo(url[1]!), number: Number(url[2]) };
  if (/^#?\d+$/.test(text)) return { repo: base, number: Number(text.replace("#", "")) };
  if (text === "HEAD") throw new GithubError("bad-input", "pr_checkout needs a pull request: pass pr (a number, URL or branch), or run it on the PR's branch.");
  const open = await githubJson<PullJson[]>(context, TOOL, `/repos/${slug(base)}/pulls`, { head: `${base.owner}:${text}`, state: "open", per_page: 1 });
  if (!Array.isArray(open) || !open[0]) throw new GithubError("not-found", `No open pull request in ${slug(base)} has the head branch ${text}; pass its number or URL.`);
  return { repo: base, number: open[0].number };
}

/** The remote of `root` that points at `ref` on the web host; else `origin`. */
function baseRemote(root: string, ref: RepoRef, webHost: string): { name: string; url: string } {
  const all = remotes(root);
  const match = all.find((remote) => {
    const named = repoOfUrl(remote.url, webHost);
    return named !== undefined && slug(named).toLowerCase() === slug(ref).toLowerCase();
  });
  const remote = match ?? all.find((candidate) => candidate.name === "origin");
  if (!remote) throw new GithubError("bad-input", `${root} has no remote for ${slug(ref)} and no origin: add one (git remote add origin <url>).`);
  return remote;
}

/** The remote pr_push pushes to for a PR from another repository: one with its URL, else a new `fork-<owner>`. */
function forkRemote(root: string, owner: string, urls: string[]): string {
  const all = remotes(root);
  const existing = all.find((remote) => urls.includes(remote.url));
  if (existing) return existing.name;
  let name = `fork-${owner.replace(/[^A-Za-z0-9_.-]/g, "-")}`;
  for (let n = 2; all.some((remote) => remote.name === name); n++) name = `fork-${owner}-${n}`;
  must(root, ["remote", "add", name, urls[0]!], `adding the remote ${name}`);
  return name;
}

/** The worktree that has `branch` checked out, if any. */
function worktreeOf(root: string, branch: string): string | undefined {
  const listing = must(root, ["worktree", "list", "--porcelain"], "listing worktrees");
  for (const block of listing.split("\n\n")) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    if (path && block.includes(`\nbranch refs/heads/${branch}`)) return path;
  }
  return undefined;
}

export async function prCheckout(context: ToolContext, repo: string | undefined, given: string | undefined, force: boolean): Promise<PrCheckout> {
  const { webHost } = githubApi(process.env);
  const root = repositoryRoot(context.cwd);
  const fallback = repo ? parseRepo(repo) : remotes(root).map((remote) => repoOfUrl(remote.url, webHost)).find(Boolean);
  if (!fallback && !/^https?:\/\//.test(given ?? "")) throw new GithubError("bad-input", `GitHub repository context is unavailable: ${root} has no ${webHost} remote. Pass repo (owner/repo) or a PR URL.`);
  const { repo: base, number } = await prNumber(context, fallback!, given, context.cwd);
  const pull = await githubJson<PullJson>(context, TOOL, `/repos/${slug(base)}/pulls/${number}`);
  const headRef = pull.head?.ref;
  if (!headRef) throw new GithubError("http", `GitHub's answer for ${slug(base)}#${number} names no head branch.`);
  const remote = baseRemote(root, base, webHost);

  for (const url of remoteUrls(root, remote.name, false)) await allowRemote(context, url, `a git fetch of pull request #${number} from ${url}`);
  must(root, ["fetch", "--no-tags", "--quiet", remote.name, `refs/pull/${number}/head`], `fetching pull/${number}/head from ${remote.name}`, { network: true });
  const sha = must(root, ["rev-parse", "--verify", "FETCH_HEAD^{commit}"], "reading the fetched head");

  const branch = `pr-${number}`;
  const existing = gitSync(["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`], { cwd: root, timeoutMs: TIMEOUT_MS });
  const worktree = worktreeOf(root, branch);
  if (existing.ok && existing.out.toString().trim() !== sha) {
    if (!force) throw new GithubError("bad-input", `The branch ${branch} exists at another commit (${existing.out.toString().trim().slice(0, 12)}, the PR head is ${sha.slice(0, 12)}); pass force: true to reset it to the PR head (its own commits there are dropped).`);
    if (worktree) must(worktree, ["reset", "--hard", "--quiet", sha], `resetting ${branch} in ${worktree}`, { withoutFilters: true });
    else must(root, ["branch", "--force", branch, sha], `resetting ${branch}`);
  } else if (!existing.ok) {
    must(root, ["branch", branch, sha], `creating ${branch}`);
  }

  const crossRepository = pull.head?.repo?.full_name !== undefined && pull.head.repo.full_name.toLowerCase() !== slug(base).toLowerCase();
  const headUrls = [pull.head?.repo?.clone_url, pull.head?.repo?.ssh_url].filter((url): url is string => typeof url === "string" && url !== "");
  if (crossRepository && headUrls.length === 0) throw new GithubError("http", `GitHub's answer for ${slug(base)}#${number} has no clone URL for its head repository.`);
  const pushRemote = crossRepository ? forkRemote(root, pull.head!.repo!.owner?.login ?? pull.head!.repo!.full_name!.split("/")[0]!, headUrls) : remote.name;
  const url = pull.html_url ?? `https://${webHost}/${slug(base)}/pull/${number}`;
  const settings: [string, string][] = [
    ["remote", pushRemote],
    ["merge", `refs/heads/${headRef}`],
    ["pushRemote", pushRemote],
    ["ompPrHeadRef", headRef],
    ["ompPrUrl", url],
    ["ompPrIsCrossRepository", String(crossRepository)],
    ["ompPrMaintainerCanModify", String(pull.maintainer_can_modify ?? false)],
  ];
  for (const [key, value] of settings) must(root, ["config", `branch.${branch}.${key}`, value], `recording ${branch}'s push target`);

  let path = worktree;
  if (!path) {
    const dir = worktreesRoot();
    const stem = join(dir, `${number}-${createHash("sha256").update(realpathSync(root)).digest("hex").slice(0, 7)}`);
    path = stem;
    for (let n = 2; existsSync(path); n++) path = `${stem}-${n}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    must(root, ["worktree", "add", "--quiet", path, branch], `creating the worktree for ${branch}`, { withoutFilters: true });
  }
  return { number, title: pull.title ?? "", url, branch, headSha: sha, worktreePath: path, reused: worktree !== undefined, remote: pushRemote, remoteBranch: headRef, crossRepository };
}

export interface PrPush {
  branch: string;
  remote: string;
  remoteBranch: string;
  remoteUrl: string;
  prUrl?: string;
  forceWithLease: boolean;
  maintainerCanModify?: boolean;
  crossRepository: boolean;
}

/** Pushes `branch` (default: the current one) to the PR head pr_checkout recorded for it. */
export async function prPush(context: ToolContext, given: string | undefined, forceWithLease: boolean): Promise<PrPush> {
  const root = repositoryRoot(context.cwd);
  const current = gitSync(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: context.cwd, timeoutMs: TIMEOUT_MS });
  const currentBranch = current.ok ? current.out.toString().trim() : undefined;
  const branch = given?.trim() || currentBranch;
  if (!branch) throw new GithubError("bad-input", "pr_push needs a branch: pass branch, or run it on a branch pr_checkout made (pr-<N>).");
  const headRef = branchConfig(root, branch, "ompPrHeadRef");
  if (!headRef) throw new GithubError("bad-input", `${branch} has no pull request to push to (branch.${branch}.ompPrHeadRef is not set): check the PR out with pr_checkout first.`);
  const remote = branchConfig(root, branch, "pushRemote") ?? branchConfig(root, branch, "remote");
  if (!remote) throw new GithubError("bad-input", `${branch} names no remote (branch.${branch}.pushRemote); check the PR out again with pr_checkout.`);
  const pushUrls = remoteUrls(root, remote, true);
  const remoteUrl = pushUrls[0] ?? "";
  const source = branch === currentBranch ? "HEAD" : `refs/heads/${branch}`;
  for (const url of pushUrls) await allowRemote(context, url, `a git push of ${branch} to ${url} (${headRef})`);
  must(context.cwd, ["push", "--quiet", ...(forceWithLease ? ["--force-with-lease"] : []), remote, `${source}:refs/heads/${headRef}`], `pushing ${branch} to ${remote}/${headRef}`, { network: true });
  const prUrl = branchConfig(root, branch, "ompPrUrl");
  const canModify = branchConfig(root, branch, "ompPrMaintainerCanModify");
  return {
    branch,
    remote,
    remoteBranch: headRef,
    remoteUrl,
    ...(prUrl ? { prUrl } : {}),
    forceWithLease,
    ...(canModify ? { maintainerCanModify: canModify === "true" } : {}),
    crossRepository: branchConfig(root, branch, "ompPrIsCrossRepository") === "true",
  };
}
