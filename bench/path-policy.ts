/**
 * What the sandbox path policy (core/sandbox/path-policy.ts) costs omp's read, grep and find per
 * call, on the search bench's corpus (this checkout's node_modules, ~26,000 real files; or
 * OMP_BENCH_TREE). Two measures per call: the call's own median, with and without the policy in
 * its context, interleaved; and the policy's work alone for that call (the checks the tool makes:
 * its root, the walk's pruning, each reported file), timed apart, which the machine's load
 * disturbs far less. Target: the policy's work ≤ 2% of the call. Writes
 * bench/results/path-policy.{json,md}.
 *
 * `bun bench/path-policy.ts` (in-process; needs the native addon built).
 */
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PathPolicy } from "../core/sandbox/path-policy.ts";
import { buildPolicy } from "../core/sandbox/policy.ts";
import { homeDir } from "../core/paths.ts";
import { findTool } from "../core/tools/find.ts";
import { grepTool } from "../core/tools/grep.ts";
import { readTool } from "../core/tools/read.ts";
import { readRefusal } from "../core/tools/paths.ts";
import type { ToolContext, ToolResult } from "../core/tools/types.ts";
import { median, round } from "./stats.ts";
import { ROOT, RESULTS } from "./paths.ts";

const TARGET_PERCENT = 2;

const corpus = realpathSync(process.env.OMP_BENCH_TREE ?? join(ROOT, "node_modules"));
const home = homeDir();
const settings = { mode: "workspace-write" as const, network: "off" as const, writable: [], denyRead: [], envAllow: [], allowSockets: [] };
const makePolicy = () => new PathPolicy(buildPolicy({ settings, cwd: corpus, addDirs: [], home, env: process.env }), corpus);
const policy = makePolicy();
const base: ToolContext = { cwd: corpus, signal: new AbortController().signal, artifactsDir: mkdtempSync(join(tmpdir(), "omp-bench-artifacts-")) };
const guarded: ToolContext = { ...base, paths: policy };

interface Case {
  name: string;
  runs: number;
  call: (context: ToolContext) => Promise<ToolResult>;
  /** The policy's work for one call, as the tool does it. */
  policyWork: (result: ToolResult, policy: PathPolicy) => void;
}

const readPath = join(corpus, "typescript", "lib", "lib.dom.d.ts");
const grepFiles = (result: ToolResult) => ((result.details as { files?: { path: string }[] } | undefined)?.files ?? []).map((file) => resolve(corpus, file.path));

/** grep's checks: its root, the walk's pruning list, each file it reports. */
function grepWork(result: ToolResult, paths: PathPolicy): void {
  readRefusal({ paths }, corpus);
  paths.deniedBelow(corpus);
  for (const file of grepFiles(result)) readRefusal({ paths }, file);
}

const CASES: Case[] = [
  {
    name: "read `typescript/lib/lib.dom.d.ts` (first 2000 lines)",
    runs: 60,
    call: (context) => readTool.execute({ path: readPath }, context),
    policyWork: (_, paths) => readRefusal({ paths }, readPath),
  },
  {
    name: "grep `-F Promise.resolve` (content, first 100)",
    runs: 9,
    call: (context) => grepTool.execute({ pattern: "Promise.resolve", literal: true }, context),
    policyWork: grepWork,
  },
  {
    name: "grep `readFileSync` (files)",
    runs: 9,
    call: (context) => grepTool.execute({ pattern: "readFileSync", outputMode: "files" }, context),
    policyWork: grepWork,
  },
  {
    name: "find `*.ts`",
    runs: 9,
    call: (context) => findTool.execute({ pattern: "*.ts" }, context),
    policyWork: (_, paths) => {
      readRefusal({ paths }, corpus);
      paths.deniedBelow(corpus);
    },
  },
];

async function time(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

const rows: { name: string; without: number; with: number; policyUs: number; freshUs: number; percent: number; met: boolean }[] = [];
const loadBefore = loadavg()[0]!;
for (const test of CASES) {
  const result = await test.call(guarded);
  if (result.isError) throw new Error(`${test.name} failed: ${JSON.stringify(result.content)}`);
  const without: number[] = [];
  const withPolicy: number[] = [];
  for (let i = 0; i < test.runs; i++) {
    without.push(await time(() => test.call(base)));
    withPolicy.push(await time(() => test.call(guarded)));
  }
  const work: number[] = [];
  for (let i = 0; i < 200; i++) work.push(await time(async () => test.policyWork(result, policy)));
  // A session's first check of a hard-linked file indexes the deny-list's files (a fresh policy each time).
  const fresh: number[] = [];
  for (let i = 0; i < 30; i++) {
    const first = makePolicy();
    fresh.push(await time(async () => test.policyWork(result, first)));
  }
  const callMs = median(without);
  const policyMs = median(work);
  const freshMs = median(fresh);
  const percent = (policyMs / callMs) * 100;
  rows.push({ name: test.name, without: round(callMs), with: round(median(withPolicy)), policyUs: round(policyMs * 1000, 1), freshUs: round(freshMs * 1000, 1), percent: round(percent, 3), met: percent <= TARGET_PERCENT });
}
const loadAfter = loadavg()[0]!;

const md = [
  "# Path policy: per-call overhead on read, grep, find",
  "",
  `${new Date().toISOString()}, in-process tool calls on ${corpus.replace(ROOT, ".")} (the search bench's corpus), medians.`,
  "\"policy work\" is what the tool asks the policy for that call (its root, the walk's pruning list, each reported file), timed",
  "apart 200 times; \"with\"/\"without\" are the whole call with and without the policy in its context, interleaved. The",
  `machine has 2 cores shared with other work (load average ${round(loadBefore)} before, ${round(loadAfter)} after), so the two`,
  "whole-call columns differ by noise far larger than the policy; the policy-work column is the measure. Target: ≤ 2% of the call.",
  "",
  "The corpus's files are hard links (a package store), so every check also asks the deny-list's inode index; \"first",
  "call\" is the same work by a new policy, which builds that index (the deny-list's files under this machine's home).",
  "It is paid once a session (and again only when a denied dir changes); the share is of the usual work.",
  "",
  "| call | without policy | with policy | policy work | first call | share of the call | target ≤ 2% |",
  "|---|---|---|---|---|---|---|",
  ...rows.map((row) => `| ${row.name} | ${row.without} ms | ${row.with} ms | ${row.policyUs} µs | ${row.freshUs} µs | ${row.percent}% | ${row.met ? "met" : "**missed**"} |`),
  "",
].join("\n");
writeFileSync(join(RESULTS, "path-policy.md"), md);
writeFileSync(join(RESULTS, "path-policy.json"), `${JSON.stringify({ date: new Date().toISOString(), corpus, loadBefore, loadAfter, rows }, null, 2)}\n`);
console.log(md);
