import { declared } from "./declare.ts";
import { github as githubDeclaration } from "./declarations/github.ts";
import { z } from "zod";
import { errorResult, textResult } from "./format.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";
import { GithubError, githubApi, githubCall, githubJson, parseJson } from "../github/api.ts";
import { repoOrCurrent, currentRepo, parseRepo, type RepoRef } from "../github/repo.ts";
import { UNTRUSTED, oneLine } from "../github/views.ts";
import { prCheckout, prPush, type PrCheckout } from "../github/pr-branch.ts";
import { gitSync } from "../git/run.ts";
import { runWatch, type FailedJob } from "../github/run-watch.ts";

/**
 * The original omp's `github` tool over GitHub's REST API (it drove the gh CLI): repo_view, the
 * search_* ops and pr_create. Single issues, PRs and diffs are read through `issue://` and
 * `pr://` (github-urls.ts). pr_create publishes: it asks in every approval mode (approval.ts).
 */

const OPS = ["repo_view", "pr_create", "pr_checkout", "pr_push", "search_issues", "search_prs", "search_code", "search_commits", "search_repos", "run_watch"] as const;
const SEARCH_LIMIT_DEFAULT = 10;
const SEARCH_LIMIT_MAX = 50;
const LINE_CHARS = 200;

const schema = z.object({
  op: z.enum(OPS).describe("Operation"),
  repo: z.string().optional().describe("owner/repo (default: this checkout)"),
  branch: z.string().optional().describe("repo_view, pr_push (default: current)"),
  pr: z.union([z.string(), z.array(z.string())]).optional().describe("pr_checkout: number, URL or branch; list to batch"),
  force: z.boolean().optional().describe("pr_checkout: reset an existing pr-<N>"),
  forceWithLease: z.boolean().optional().describe("pr_push"),
  query: z.string().optional().describe("search_*"),
  since: z.string().optional().describe("3d, 2w, 2mo, 1y or YYYY-MM-DD"),
  until: z.string().optional().describe("like since"),
  dateField: z.enum(["created", "updated"]).optional().describe("default created"),
  limit: z.number().optional().describe("default 10, max 50"),
  title: z.string().optional().describe("pr_create"),
  body: z.string().optional().describe("pr_create"),
  base: z.string().optional().describe("default: repo default"),
  head: z.string().optional().describe("default: current branch"),
  draft: z.boolean().optional().describe("pr_create"),
  fill: z.boolean().optional().describe("title/body from head commit"),
  reviewer: z.array(z.string()).optional().describe("pr_create"),
  assignee: z.array(z.string()).optional().describe("pr_create"),
  label: z.array(z.string()).optional().describe("pr_create"),
  run: z.string().optional().describe("run_watch: run id or URL (default: the branch's head commit runs)"),
  tail: z.number().optional().describe("run_watch: failed-log lines, default 15"),
});

type Input = z.infer<typeof schema>;

export interface GithubDetails {
  op: string;
  repo?: string;
  url?: string;
  branch?: string;
  worktreePath?: string;
  remote?: string;
  remoteBranch?: string;
  checkouts?: PrCheckout[];
  runIds?: number[];
  status?: string;
  conclusion?: string;
  failedJobs?: FailedJob[];
  artifactId?: string;
}

export const githubTool: ToolDefinition<typeof schema, GithubDetails> = {
  ...declared(githubDeclaration),
  schema,
  // pr_checkout fetches, makes a branch and a worktree; pr_push publishes (asks in every mode, approval.ts).
  effectOf: (input) => (input.op === "pr_checkout" ? "exec" : "network"),
  async execute(input, context) {
    try {
      return await run(input, context);
    } catch (error) {
      if (error instanceof GithubError) return errorResult(error.message, { op: input.op });
      throw error;
    }
  },
};

function run(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  switch (input.op) {
    case "repo_view":
      return repoView(input, context);
    case "pr_create":
      return prCreate(input, context);
    case "pr_checkout":
      return checkout(input, context);
    case "pr_push":
      return push(input, context);
    case "run_watch":
      return watch(input, context);
    default:
      return search(input, context);
  }
}

const text = (value: unknown) => (typeof value === "string" ? oneLine(value) : "");
const firstLine = (value: unknown) => {
  const line = (typeof value === "string" ? value : "").split("\n")[0]!.trim();
  return text(line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line);
};
const slug = (ref: RepoRef) => `${ref.owner}/${ref.repo}`;

interface RepoJson {
  full_name?: string;
  description?: string | null;
  html_url?: string;
  default_branch?: string;
  visibility?: string;
  private?: boolean;
  permissions?: Record<string, boolean>;
  language?: string | null;
  stargazers_count?: number;
  forks_count?: number;
  open_issues_count?: number;
  archived?: boolean;
  fork?: boolean;
  updated_at?: string;
  pushed_at?: string;
  homepage?: string | null;
  topics?: string[];
}

async function repoView(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  const ref = repoOrCurrent(input.repo, context.cwd, githubApi(process.env).webHost);
  const repo = await githubJson<RepoJson>(context, "github", `/repos/${slug(ref)}`);
  let branchLine: string | undefined;
  if (input.branch) {
    const branch = await githubJson<{ name?: string; commit?: { sha?: string }; protected?: boolean }>(context, "github", `/repos/${slug(ref)}/branches/${encodeURIComponent(input.branch)}`);
    branchLine = `Branch: ${text(branch.name)} at ${text(branch.commit?.sha).slice(0, 12)}${branch.protected ? " (protected)" : ""}`;
  }
  const permission = repo.permissions ? (["admin", "maintain", "push", "triage", "pull"].find((level) => repo.permissions![level]) ?? "none") : undefined;
  const lines = [
    `# ${text(repo.full_name) || slug(ref)}`,
    ...(repo.description ? [`Description: ${firstLine(repo.description)}`] : []),
    `URL: ${text(repo.html_url)}`,
    `Default branch: ${text(repo.default_branch)}`,
    ...(branchLine ? [branchLine] : []),
    `Visibility: ${text(repo.visibility) || (repo.private ? "private" : "public")}`,
    ...(permission ? [`Permission: ${permission}`] : []),
    ...(repo.language ? [`Language: ${text(repo.language)}`] : []),
    `Stars: ${repo.stargazers_count ?? 0} · Forks: ${repo.forks_count ?? 0} · Open issues: ${repo.open_issues_count ?? 0}`,
    ...(repo.archived ? ["Archived: yes"] : []),
    ...(repo.fork ? ["Fork: yes"] : []),
    `Updated: ${text(repo.pushed_at ?? repo.updated_at)}`,
    ...(repo.homepage ? [`Homepage: ${text(repo.homepage)}`] : []),
    ...(repo.topics && repo.topics.length > 0 ? [`Topics: ${repo.topics.map(text).join(", ")}`] : []),
  ];
  return textResult(lines.join("\n"), { op: "repo_view", repo: slug(ref), ...(repo.html_url ? { url: repo.html_url } : {}) });
}

/** `3d`, `12h`, `2w`, `2mo`, `1y`, `YYYY-MM-DD` or an ISO datetime, as GitHub's search takes it. */
export function dateBound(value: string, name: "since" | "until", now = new Date()): string {
  const trimmed = value.trim();
  const relative = /^(\d+)(h|d|w|mo|y)$/.exec(trimmed);
  if (relative) {
    const n = Number(relative[1]);
    const at = new Date(now);
    if (relative[2] === "h") at.setUTCHours(at.getUTCHours() - n);
    else if (relative[2] === "d") at.setUTCDate(at.getUTCDate() - n);
    else if (relative[2] === "w") at.setUTCDate(at.getUTCDate() - 7 * n);
    else if (relative[2] === "mo") at.setUTCMonth(at.getUTCMonth() - n);
    else at.setUTCFullYear(at.getUTCFullYear() - n);
    return relative[2] === "h" ? at.toISOString().replace(/\.\d+Z$/, "Z") : at.toISOString().slice(0, 10);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed) || (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/.test(trimmed) && !Number.isNaN(Date.parse(trimmed)))) return trimmed;
  throw new GithubError("bad-input", `${name} "${value}" is not a date: use 3d, 12h, 2w, 2mo, 1y, YYYY-MM-DD or an ISO datetime.`);
}

function qualifier(field: string, since: string | undefined, until: string | undefined): string | undefined {
  if (since && until) return `${field}:${since}..${until}`;
  if (since) return `${field}:>=${since}`;
  if (until) return `${field}:<=${until}`;
  return undefined;
}

interface SearchItem {
  number?: number;
  title?: string;
  state?: string;
  user?: { login?: string } | null;
  labels?: { name?: string }[];
  created_at?: string;
  updated_at?: string;
  html_url?: string;
  repository_url?: string;
  name?: string;
  path?: string;
  sha?: string;
  repository?: { full_name?: string };
  text_matches?: { fragment?: string }[];
  commit?: { message?: string; author?: { name?: string; date?: string }; committer?: { date?: string } };
  author?: { login?: string } | null;
  full_name?: string;
  description?: string | null;
  language?: string | null;
  stargazers_count?: number;
  forks_count?: number;
  open_issues_count?: number;
  visibility?: string;
  archived?: boolean;
  fork?: boolean;
  pushed_at?: string;
}

type SearchOp = Exclude<Input["op"], "repo_view" | "pr_create" | "pr_checkout" | "pr_push" | "run_watch">;

/** Each search op's endpoint under /search and what it finds. */
const SEARCHES: Record<SearchOp, [endpoint: string, title: string]> = {
  search_issues: ["issues", "issues"],
  search_prs: ["issues", "pull requests"],
  search_code: ["code", "code"],
  search_commits: ["commits", "commits"],
  search_repos: ["repositories", "repositories"],
};

async function search(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  const op = input.op;
  const raw = input.limit ?? SEARCH_LIMIT_DEFAULT;
  if (!Number.isFinite(raw) || raw <= 0) throw new GithubError("bad-input", `limit must be a number above 0, not ${raw}.`);
  const limit = Math.min(SEARCH_LIMIT_MAX, Math.floor(raw) || 1);
  const query = input.query?.trim() ?? "";
  if (op === "search_code" && !query) throw new GithubError("bad-input", "search_code needs a query.");
  if (op === "search_code" && (input.since || input.until)) throw new GithubError("bad-input", "search_code takes no since or until: GitHub's code search has no date qualifier.");
  const since = input.since ? dateBound(input.since, "since") : undefined;
  const until = input.until ? dateBound(input.until, "until") : undefined;
  const field = op === "search_commits" ? "committer-date" : op === "search_repos" ? (input.dateField === "updated" ? "pushed" : "created") : (input.dateField ?? "created");
  const scoped = /(^|\s)(repo|org|user|owner):/i.test(query);
  let repo: RepoRef | undefined;
  if (op !== "search_repos" && !scoped) repo = input.repo ? parseRepo(input.repo) : currentRepo(context.cwd, githubApi(process.env).webHost);
  const terms = [query, qualifier(field, since, until), repo ? `repo:${slug(repo)}` : undefined, op === "search_issues" ? "is:issue" : op === "search_prs" ? "is:pr" : undefined].filter(Boolean);
  const [endpoint, title] = SEARCHES[op as SearchOp];
  const response = await githubCall(context, "github", `/search/${endpoint}`, {
    query: { q: terms.join(" "), per_page: limit },
    ...(op === "search_code" ? { accept: "application/vnd.github.text-match+json" } : {}),
  });
  const result = parseJson<{ total_count?: number; items?: SearchItem[] }>(response.text, `/search/${endpoint}`);
  const items = (result.items ?? []).slice(0, limit);
  const lines = [`# GitHub ${title} search`, `Query: ${text(terms.join(" "))}`, ...(repo ? [`Repository: ${slug(repo)}`] : []), `Results: ${result.total_count ?? items.length} (showing ${items.length})`, "", UNTRUSTED, ""];
  for (const item of items) lines.push(...formatItem(op, item), "");
  return textResult(lines.join("\n").trimEnd(), { op, ...(repo ? { repo: slug(repo) } : {}) });
}

function formatItem(op: Input["op"], item: SearchItem): string[] {
  if (op === "search_code") {
    const fragment = item.text_matches?.[0]?.fragment?.split("\n").map((line) => line.trim()).find(Boolean);
    return [`- ${text(item.path)} in ${text(item.repository?.full_name)} (${text(item.sha).slice(0, 7)})`, `  ${text(item.html_url)}`, ...(fragment ? [`  ${firstLine(fragment)}`] : [])];
  }
  if (op === "search_commits") {
    return [`- ${text(item.sha).slice(0, 7)} ${firstLine(item.commit?.message)}`, `  ${text(item.repository?.full_name)} · ${item.author?.login ? `@${text(item.author.login)}` : text(item.commit?.author?.name)} · ${text(item.commit?.committer?.date ?? item.commit?.author?.date)}`, `  ${text(item.html_url)}`];
  }
  if (op === "search_repos") {
    const flags = [item.archived ? "archived" : "", item.fork ? "fork" : ""].filter(Boolean).join(", ");
    return [
      `- ${text(item.full_name)}${item.description ? `: ${firstLine(item.description)}` : ""}`,
      `  ${[item.language ? text(item.language) : "", `★${item.stargazers_count ?? 0}`, `forks ${item.forks_count ?? 0}`, `open issues ${item.open_issues_count ?? 0}`, text(item.visibility), flags, `updated ${text(item.pushed_at)}`].filter(Boolean).join(" · ")}`,
      `  ${text(item.html_url)}`,
    ];
  }
  const repo = text(item.repository_url).replace(/^.*\/repos\//, "");
  const labels = (item.labels ?? []).map((label) => text(label.name)).filter(Boolean);
  return [
    `- ${repo}#${item.number} ${firstLine(item.title)}`,
    `  ${[text(item.state), item.user?.login ? `@${text(item.user.login)}` : "", labels.length > 0 ? labels.join(", ") : "", `created ${text(item.created_at)}`, `updated ${text(item.updated_at)}`].filter(Boolean).join(" · ")}`,
    `  ${text(item.html_url)}`,
  ];
}

function git(cwd: string, ...args: string[]): string | undefined {
  const result = gitSync(args, { cwd, timeoutMs: 10_000 });
  return result.ok ? result.out.toString().trim() : undefined;
}

interface PullJson {
  number: number;
  html_url?: string;
  state?: string;
  draft?: boolean;
  title?: string;
  body?: string | null;
  user?: { login?: string };
  created_at?: string;
  head?: { ref?: string };
  base?: { ref?: string };
}

async function prCreate(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  if (input.fill && (input.title !== undefined || input.body !== undefined)) throw new GithubError("bad-input", "fill takes the title and body from the head commit: give fill or title/body, not both.");
  if (!input.fill && !input.title?.trim()) throw new GithubError("bad-input", "pr_create needs a title (or fill: true).");
  const ref = repoOrCurrent(input.repo, context.cwd, githubApi(process.env).webHost);
  const head = input.head ?? git(context.cwd, "rev-parse", "--abbrev-ref", "HEAD");
  if (!head || head === "HEAD") throw new GithubError("bad-input", "pr_create needs a head branch: pass head, or run it on a checked-out branch.");
  let title = input.title?.trim() ?? "";
  let body = input.body ?? "";
  if (input.fill) {
    title = git(context.cwd, "log", "-1", "--format=%s", head) ?? "";
    body = git(context.cwd, "log", "-1", "--format=%b", head) ?? "";
    if (!title) throw new GithubError("bad-input", `fill found no commit on ${head} to take a title from; give a title.`);
  }
  const base = input.base ?? text((await githubJson<RepoJson>(context, "github", `/repos/${slug(ref)}`)).default_branch);
  const created = parseJson<PullJson>(
    (await githubCall(context, "github", `/repos/${slug(ref)}/pulls`, { method: "POST", body: { title, body, head, base, draft: input.draft ?? false } })).text,
    "/pulls",
  );
  const notes: string[] = [];
  const follow = async (what: string, path: string, payload: unknown) => {
    try {
      await githubCall(context, "github", path, { method: "POST", body: payload });
    } catch (error) {
      notes.push(`Could not add ${what}: ${(error as Error).message}`);
    }
  };
  if (input.reviewer?.length) await follow("reviewers", `/repos/${slug(ref)}/pulls/${created.number}/requested_reviewers`, { reviewers: input.reviewer });
  if (input.assignee?.length) await follow("assignees", `/repos/${slug(ref)}/issues/${created.number}/assignees`, { assignees: input.assignee });
  if (input.label?.length) await follow("labels", `/repos/${slug(ref)}/issues/${created.number}/labels`, { labels: input.label });
  const lines = [
    `# Created Pull Request ${slug(ref)}#${created.number}: ${firstLine(created.title ?? title)}`,
    `URL: ${text(created.html_url)}`,
    `State: ${text(created.state) || "open"}${created.draft ? " (draft)" : ""}`,
    `Branches: ${text(created.head?.ref ?? head)} → ${text(created.base?.ref ?? base)}`,
    ...(created.user?.login ? [`Author: @${text(created.user.login)}`] : []),
    ...(created.created_at ? [`Created: ${text(created.created_at)}`] : []),
    ...(input.label?.length ? [`Labels: ${input.label.map(text).join(", ")}`] : []),
    ...notes,
  ];
  return textResult(lines.join("\n"), { op: "pr_create", repo: slug(ref), ...(created.html_url ? { url: created.html_url } : {}) });
}

function checkoutSection(done: PrCheckout): string[] {
  return [
    `Pull request: #${done.number} ${firstLine(done.title)}`,
    `URL: ${text(done.url)}`,
    `Branch: ${done.branch} at ${done.headSha.slice(0, 12)}`,
    `Worktree: ${done.worktreePath}${done.reused ? " (reused)" : ""}`,
    `Push target: ${done.remote} ${text(done.remoteBranch)}${done.crossRepository ? " (the author's fork)" : ""} — pr_push sends commits there`,
  ];
}

/** One PR, or several (each reported; one failing leaves the others checked out). */
async function checkout(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  const prs = Array.isArray(input.pr) ? input.pr : [input.pr];
  if (prs.length === 0) throw new GithubError("bad-input", "pr is an empty list: give PR numbers, URLs or branches.");
  const done: PrCheckout[] = [];
  const failed: string[] = [];
  for (const pr of prs) {
    try {
      done.push(await prCheckout(context, input.repo, pr, input.force ?? false));
    } catch (error) {
      if (prs.length === 1 || !(error instanceof Error)) throw error;
      failed.push(`- ${pr}: ${error.message}`);
    }
  }
  const details: GithubDetails = { op: "pr_checkout", checkouts: done };
  if (prs.length === 1) {
    const one = done[0]!;
    return textResult([`# Checked out Pull Request #${one.number}`, ...checkoutSection(one)].join("\n"), { ...details, url: one.url, branch: one.branch, worktreePath: one.worktreePath, remote: one.remote, remoteBranch: one.remoteBranch });
  }
  const header = failed.length > 0 ? `# ${done.length}/${prs.length} Pull Request Worktrees checked out (${failed.length} failed)` : `# ${done.length} Pull Request Worktrees (${done.map((one) => `#${one.number}`).join(", ")})`;
  const sections = done.map((one) => [`## #${one.number}`, ...checkoutSection(one)].join("\n"));
  return textResult([header, ...sections, ...(failed.length > 0 ? ["## Failed", ...failed] : [])].join("\n\n---\n\n"), details);
}

async function push(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  const pushed = await prPush(context, input.branch, input.forceWithLease ?? false);
  const lines = [
    "# Pushed Pull Request Branch",
    `Local branch: ${pushed.branch}`,
    `Remote: ${pushed.remote}`,
    `Remote branch: ${text(pushed.remoteBranch)}`,
    `Remote URL: ${text(pushed.remoteUrl)}`,
    ...(pushed.prUrl ? [`PR: ${text(pushed.prUrl)}`] : []),
    `Force with lease: ${pushed.forceWithLease ? "yes" : "no"}`,
    ...(pushed.crossRepository && pushed.maintainerCanModify === false ? ["Note: the author does not allow maintainers to push to this fork; GitHub may refuse later pushes."] : []),
  ];
  return textResult(lines.join("\n"), { op: "pr_push", branch: pushed.branch, remote: pushed.remote, remoteBranch: pushed.remoteBranch, ...(pushed.prUrl ? { url: pushed.prUrl } : {}) });
}

async function watch(input: Input, context: ToolContext): Promise<ToolResult<GithubDetails>> {
  const watched = await runWatch(context, input);
  const { text: body, failedJobs, ...rest } = watched;
  return textResult(body, { op: "run_watch", ...rest, failedJobs });
}
