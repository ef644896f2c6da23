import { closeSync, writeSync } from "node:fs";
import { createNumberedLog } from "../shell/bash-output.ts";
import type { ToolContext } from "../tools/types.ts";
import { GithubError, githubApi, githubCall, githubJson } from "./api.ts";
import { currentRepo, parseRepo, type RepoRef } from "./repo.ts";
import { gitSync } from "../git/run.ts";
import { oneLine } from "./views.ts";

/**
 * The original's run_watch: a GitHub Actions run (by id or URL), or every run of a branch's head
 * commit, polled until it completes — every 3 s for the first minute, then every 15 s, at most
 * RUN_WATCH_TIMEOUT_MS in all, stopped by Esc or a signal (the call's abort signal). Failed jobs
 * get their log's last `tail` lines inline and the whole logs saved as an artifact.
 */

const TOOL = "github";
const INTERVAL_FAST_MS = 3_000;
const INTERVAL_SLOW_MS = 15_000;
const FAST_WINDOW_MS = 60_000;
const NO_RUNS_GIVE_UP_MS = 90_000;
const GRACE_MS = 5_000;
const MAX_POLL_FAILURES = 5;
/** A watch that outlives this is reported as it stands: CI that long is a job for another call. */
const RUN_WATCH_TIMEOUT_MS = 60 * 60_000;
const TAIL_DEFAULT = 15;
const TAIL_MAX = 200;
const JOBS_PAGE_SIZE = 100;
/** One job's log, at most; the artifact keeps what was read. */
const MAX_LOG_BYTES = 8 * 1024 * 1024;
const FAILED = new Set(["failure", "timed_out", "startup_failure"]);

interface RunJson {
  id: number;
  name?: string;
  display_title?: string;
  status?: string;
  conclusion?: string | null;
  html_url?: string;
  head_branch?: string;
  head_sha?: string;
  event?: string;
}
interface JobJson {
  id: number;
  name?: string;
  status?: string;
  conclusion?: string | null;
  html_url?: string;
}
interface Watched {
  run: RunJson;
  jobs: JobJson[];
}

export interface FailedJob {
  run: number;
  job: number;
  name: string;
  conclusion: string;
  url?: string;
  tail?: string;
}

export interface RunWatchResult {
  text: string;
  repo: string;
  runIds: number[];
  status: string;
  conclusion?: string;
  failedJobs: FailedJob[];
  artifactId?: string;
  url?: string;
}

const slug = (ref: RepoRef) => `${ref.owner}/${ref.repo}`;
const text = (value: unknown) => (typeof value === "string" ? oneLine(value) : "");

/** `tail` as the original takes it: floored, at most TAIL_MAX, above 0. */
function tailLines(raw: number | undefined): number {
  const value = raw ?? TAIL_DEFAULT;
  if (!Number.isFinite(value) || value <= 0) throw new GithubError("bad-input", `tail must be a number above 0, not ${value}.`);
  return Math.min(TAIL_MAX, Math.floor(value) || 1);
}

/** `123` or `https://<host>/<owner>/<repo>/actions/runs/123[/…]`. */
export function parseRun(value: string): { id: number; repo?: RepoRef } {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return { id: Number(trimmed) };
  const url = /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)(?:[/?#].*)?$/.exec(trimmed);
  if (url) return { id: Number(url[2]), repo: parseRepo(url[1]!) };
  throw new GithubError("bad-input", `run "${value}" is not a run: give its numeric id or its URL (https://github.com/<owner>/<repo>/actions/runs/<id>).`);
}

/** Waits `ms`; a stop (Esc, a signal) rejects at once with what was last seen. */
function wait(ms: number, signal: AbortSignal, lastSeen: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(new GithubError("aborted", `run_watch was stopped before the run completed. Last seen:\n${lastSeen()}`));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

export async function runWatch(context: ToolContext, input: { repo?: string; branch?: string; run?: string; tail?: number }): Promise<RunWatchResult> {
  const tail = tailLines(input.tail);
  const given = input.run ? parseRun(input.run) : undefined;
  const explicit = input.repo ? parseRepo(input.repo) : undefined;
  if (explicit && given?.repo && slug(explicit).toLowerCase() !== slug(given.repo).toLowerCase()) {
    throw new GithubError("bad-input", `run's URL is in ${slug(given.repo)} but repo says ${slug(explicit)}: give one of them.`);
  }
  const { webHost } = githubApi(process.env);
  const ref = explicit ?? given?.repo ?? currentRepo(context.cwd, webHost);
  if (!ref) throw new GithubError("bad-input", `GitHub repository context is unavailable: ${context.cwd} has no ${webHost} remote. Pass repo (owner/repo) or a run URL.`);
  const repo = slug(ref);

  let sha: string | undefined;
  if (!given) {
    const branch = input.branch?.trim() || currentBranch(context.cwd);
    if (!branch) throw new GithubError("bad-input", "run_watch needs a run or a branch: pass run (id or URL) or branch, or call it on a checked-out branch.");
    const head = await githubJson<{ commit?: { sha?: string } }>(context, TOOL, `/repos/${repo}/branches/${encodeURIComponent(branch)}`);
    sha = head.commit?.sha;
    if (!sha) throw new GithubError("http", `GitHub named no head commit for ${repo}@${branch}.`);
  }

  const started = Date.now();
  const interval = () => (Date.now() - started < FAST_WINDOW_MS ? INTERVAL_FAST_MS : INTERVAL_SLOW_MS);
  const poll = async (): Promise<Watched[]> => {
    const runs = given
      ? [await githubJson<RunJson>(context, TOOL, `/repos/${repo}/actions/runs/${given.id}`)]
      : ((await githubJson<{ workflow_runs?: RunJson[] }>(context, TOOL, `/repos/${repo}/actions/runs`, { head_sha: sha, per_page: JOBS_PAGE_SIZE })).workflow_runs ?? []);
    return Promise.all(runs.map(async (run) => ({ run, jobs: (await githubJson<{ jobs?: JobJson[] }>(context, TOOL, `/repos/${repo}/actions/runs/${run.id}/jobs`, { per_page: JOBS_PAGE_SIZE })).jobs ?? [] })));
  };

  let failures = 0;
  let graced = false;
  let greenIds: string | undefined;
  let state: Watched[] = [];
  const seen = () => summary(repo, state, sha);
  for (;;) {
    try {
      state = await poll();
      failures = 0;
    } catch (error) {
      // A rate limit or a dropped connection is waited out; anything else (401, 404) ends the watch.
      if (!(error instanceof GithubError) || (error.kind !== "rate-limit" && error.kind !== "network") || ++failures >= MAX_POLL_FAILURES) throw error;
      await wait(INTERVAL_SLOW_MS, context.signal, seen);
      continue;
    }
    context.onUpdate?.(summary(repo, state, sha));
    const done = state.length > 0 && state.every((watched) => watched.run.status === "completed");
    const failedEarly = !done && state.some((watched) => watched.jobs.some((job) => FAILED.has(job.conclusion ?? "")));
    if (done) {
      const ids = state.map((watched) => watched.run.id).sort().join(",");
      const green = state.every((watched) => !FAILED.has(watched.run.conclusion ?? "") && watched.run.conclusion !== "cancelled");
      // A commit's runs may still be appearing: success counts when one more poll finds the same runs.
      if (!given && green && greenIds !== ids) greenIds = ids;
      else break;
    } else if (failedEarly && !graced) {
      // Jobs failing together are reported together: one short grace period, then the logs.
      graced = true;
      context.onUpdate?.(`${summary(repo, state, sha)}\nA job failed; collecting concurrent failures for ${GRACE_MS / 1000}s…`);
      await wait(GRACE_MS, context.signal, seen);
      state = await poll();
      break;
    } else {
      greenIds = undefined;
    }
    if (!given && state.length === 0 && Date.now() - started > NO_RUNS_GIVE_UP_MS) {
      throw new GithubError("not-found", `No GitHub Actions run appeared for ${repo}@${sha!.slice(0, 12)} within ${NO_RUNS_GIVE_UP_MS / 1000}s; check the workflows' triggers, or pass run.`);
    }
    if (Date.now() - started > RUN_WATCH_TIMEOUT_MS) break;
    await wait(interval(), context.signal, seen);
  }

  const failedJobs: FailedJob[] = [];
  const fullLogs: string[] = [];
  for (const watched of state) {
    for (const job of watched.jobs) {
      if (!FAILED.has(job.conclusion ?? "")) continue;
      const log = await jobLog(context, repo, job.id);
      const lines = log?.replace(/\r/g, "").trimEnd().split("\n");
      failedJobs.push({ run: watched.run.id, job: job.id, name: text(job.name), conclusion: text(job.conclusion), ...(job.html_url ? { url: job.html_url } : {}), ...(lines ? { tail: lines.slice(-tail).join("\n") } : {}) });
      fullLogs.push(`===== ${text(job.name)} (job ${job.id}, run ${watched.run.id}) =====`, log ?? "Full log unavailable.", "");
    }
  }
  let artifactId: string | undefined;
  if (fullLogs.length > 0) {
    const { fd, path } = createNumberedLog(context.artifactsDir, "github");
    try {
      const body = fullLogs.join("\n");
      writeSync(fd, context.redact ? context.redact(body) : body);
    } finally {
      closeSync(fd);
    }
    artifactId = /-(\d+)\.log$/.exec(path)![1]!;
  }
  const completed = state.length > 0 && state.every((watched) => watched.run.status === "completed");
  const conclusion = completed ? (state.some((watched) => FAILED.has(watched.run.conclusion ?? "")) ? "failure" : state.every((watched) => watched.run.conclusion === "success" || watched.run.conclusion === "skipped") ? "success" : text(state.find((watched) => watched.run.conclusion !== "success")?.run.conclusion)) : undefined;
  const lines = [summary(repo, state, sha)];
  if (!completed) lines.push(failedJobs.length > 0 ? "A job failed; the run is still going." : `Still running after ${RUN_WATCH_TIMEOUT_MS / 60_000} minutes; call run_watch again to go on watching.`);
  for (const job of failedJobs) {
    lines.push("", `## Failed job: ${job.name} (${job.conclusion})`, ...(job.url ? [`URL: ${text(job.url)}`] : []));
    lines.push(job.tail !== undefined ? `Last ${tail} log lines:\n\`\`\`\n${job.tail}\n\`\`\`` : "Log tail unavailable.");
  }
  if (artifactId) lines.push("", `Full failed-job logs: artifact://${artifactId}`);
  return {
    text: lines.join("\n"),
    repo,
    runIds: state.map((watched) => watched.run.id),
    status: completed ? "completed" : "in_progress",
    ...(conclusion ? { conclusion } : {}),
    failedJobs,
    ...(artifactId ? { artifactId } : {}),
    ...(given && state[0]?.run.html_url ? { url: state[0].run.html_url } : {}),
  };
}

function currentBranch(cwd: string): string | undefined {
  const result = gitSync(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd, timeoutMs: 10_000 });
  return result.ok ? result.out.toString().trim() : undefined;
}

/** A job's log (GitHub redirects to storage; the token stays with the API); undefined when it cannot be had. */
async function jobLog(context: ToolContext, repo: string, job: number): Promise<string | undefined> {
  try {
    return (await githubCall(context, TOOL, `/repos/${repo}/actions/jobs/${job}/logs`, { maxBytes: MAX_LOG_BYTES })).text;
  } catch (error) {
    if (error instanceof GithubError && error.kind !== "aborted") return undefined;
    throw error;
  }
}

function summary(repo: string, state: Watched[], sha: string | undefined): string {
  const head = sha ? `# GitHub Actions for ${repo}@${sha.slice(0, 12)}` : `# GitHub Actions run ${state[0]?.run.id ?? ""} (${repo})`;
  if (state.length === 0) return `${head}\nNo runs yet.`;
  const lines = [head];
  for (const { run, jobs } of state) {
    lines.push(`## ${text(run.name) || "run"} #${run.id}: ${text(run.status)}${run.conclusion ? ` (${text(run.conclusion)})` : ""}`);
    if (run.display_title) lines.push(`Title: ${text(run.display_title)}`);
    if (run.head_branch || run.head_sha) lines.push(`Branch: ${text(run.head_branch)} · Commit: ${text(run.head_sha).slice(0, 12)}${run.event ? ` · Event: ${text(run.event)}` : ""}`);
    if (run.html_url) lines.push(`URL: ${text(run.html_url)}`);
    for (const job of jobs) lines.push(`- ${text(job.name)}: ${job.conclusion ? text(job.conclusion) : text(job.status)}`);
  }
  return lines.join("\n");
}
