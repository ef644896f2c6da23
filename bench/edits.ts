/**
 * The edit corpus (test/fixtures/edit-corpus/) scored per edit format through dist/omp and the
 * provider stand-in — applied correctly / refused with a clear cause / damaged — by running
 * test/e2e/edit-corpus.test.ts with EDIT_CORPUS_OUT set; and the time to apply one edit to a 5 MB
 * file in each format, in process (read, match, write). Writes bench/results/edits.json and edits.md.
 * `bun bench/edits.ts` (build dist/omp first).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { applyPatchTool, hashlineEditTool, patchEditTool } from "../core/tools/edit/tools.ts";
import { editTool } from "../core/tools/edit.ts";
import type { ToolDefinition } from "../core/tools/types.ts";
import { CASES, FORMATS, type Format, type Outcome, score } from "../test/support/edit-corpus.ts";
import { median, percentile, round } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "..");
const WORK = join(ROOT, "bench", "work", "edits");
const RESULTS = join(ROOT, "bench", "results");

function corpusScores(): Record<Format, { outcomes: Record<string, Outcome>; seconds: number }> {
  const out = join(WORK, "corpus.json");
  rmSync(out, { force: true });
  const run = Bun.spawnSync([process.execPath, "test", "--timeout", "120000", "test/e2e/edit-corpus.test.ts"], {
    cwd: ROOT,
    env: { ...process.env, EDIT_CORPUS_OUT: out },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (run.exitCode !== 0) process.stderr.write(`edit-corpus.test.ts failed (scores are still recorded):\n${run.stderr.toString().slice(-4000)}\n`);
  return JSON.parse(readFileSync(out, "utf8"));
}

/** A 5 MB TypeScript-like file: numbered functions, so every edit target is unique. */
function bigFile(): { text: string; functions: number } {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 5 * 1024 * 1024; i++) {
    const fn = `export function handler${i}(input: number): number {\n  const value = input * ${i};\n  return value + 1;\n}\n\n`;
    parts.push(fn);
    size += fn.length;
  }
  return { text: parts.join(""), functions: parts.length };
}

const TOOLS: Record<Format, ToolDefinition<any>> = { replace: editTool, patch: patchEditTool, hashline: hashlineEditTool, apply_patch: applyPatchTool };

/** The same change to function n in each format: the exact text, and (replace) the text with a shifted indent. */
function requestFor(format: Format | "replace-reindented", text: string, n: number): Record<string, unknown> {
  const old = `export function handler${n}(input: number): number {\n  const value = input * ${n};`;
  const replacement = `export function handler${n}(input: number): number {\n  const value = input * ${n} + 7;`;
  switch (format) {
    case "replace":
      return { path: "big.ts", edits: [{ oldText: old, newText: replacement }] };
    case "replace-reindented":
      return { path: "big.ts", edits: [{ oldText: old.replace(/^/gm, "    "), newText: replacement.replace(/^/gm, "    ") }] };
    case "patch":
      return { path: "big.ts", diff: `@@\n ${old.split("\n")[0]}\n-  const value = input * ${n};\n+  const value = input * ${n} + 7;` };
    case "apply_patch":
      return { input: `*** Begin Patch\n*** Update File: big.ts\n@@\n ${old.split("\n")[0]}\n-  const value = input * ${n};\n+  const value = input * ${n} + 7;\n*** End Patch` };
    case "hashline": {
      const line = text.slice(0, text.indexOf(`  const value = input * ${n};`)).split("\n").length;
      return { input: `[big.ts]\nSWAP ${line}.=${line}:\n+  const value = input * ${n} + 7;` };
    }
  }
}

async function applyTimes(): Promise<Record<string, { medianMs: number; p90Ms: number; bytes: number }>> {
  const dir = join(WORK, "big");
  mkdirSync(dir, { recursive: true });
  const { text, functions } = bigFile();
  const times: Record<string, { medianMs: number; p90Ms: number; bytes: number }> = {};
  for (const format of [...FORMATS, "replace-reindented"] as const) {
    const tool = TOOLS[format === "replace-reindented" ? "replace" : format];
    const samples: number[] = [];
    for (let run = 0; run < 15; run++) {
      writeFileSync(join(dir, "big.ts"), text);
      // Near the end of the file: the whole file is searched.
      const input = tool.schema.parse(requestFor(format, text, functions - 20 - run));
      const started = performance.now();
      const result = await tool.execute(input, { cwd: dir, signal: new AbortController().signal, artifactsDir: join(dir, ".artifacts") });
      samples.push(performance.now() - started);
      if (result.isError) throw new Error(`${format}: ${JSON.stringify(result.content)}`);
    }
    times[format] = { medianMs: round(median(samples), 1), p90Ms: round(percentile(samples, 90), 1), bytes: text.length };
  }
  return times;
}

mkdirSync(WORK, { recursive: true });
const corpus = corpusScores();
const apply = await applyTimes();
const table = FORMATS.map((format) => {
  const entry = corpus[format];
  const s = score(new Map(Object.entries(entry?.outcomes ?? {})));
  return { format, ...s, cases: CASES.length, seconds: round(entry?.seconds ?? 0, 2) };
});
writeFileSync(join(RESULTS, "edits.json"), `${JSON.stringify({ date: new Date().toISOString(), corpus: table, outcomes: corpus, apply5MB: apply }, null, 2)}\n`);

const md = [
  "# Edits",
  "",
  `Recorded ${new Date().toISOString().slice(0, 10)} by \`bun bench/edits.ts\` on dist/omp. The corpus is test/fixtures/edit-corpus/cases.ts: ${CASES.length} imperfect edit requests (${CASES.filter((c) => c.expected === "refuse").length} of them must be refused), sent through the provider stand-in in each format — replace, patch and hashline as an Anthropic model with \`edit.mode\` set, apply_patch as a GPT model's default. A case is *applied* when the file is exactly the expected one (endings, BOM, mode and symlink included), *refused* when the tool said why and the file is as it was, *damaged* otherwise. hashline names lines, not text: the ${CASES.filter((c) => c.hashline === "n/a").length} cases whose slip is in the old text (or that create a file) have no hashline counterpart.`,
  "",
  "| format | applied | refused (clear cause) | damaged | n/a | target |",
  "|---|---|---|---|---|---|",
  ...table.map((row) => `| ${row.format} | ${row.applied} | ${row.refused} | ${row.damaged} | ${row.na} | ≥ 28 applied, 0 damaged: ${row.applied >= 28 && row.damaged === 0 ? "met" : "missed"} |`),
  "",
  "Refused cases per format (the ten must-refuse cases are among them): " +
    table.map((row) => `${row.format}: ${row.refusedCases.join(", ") || "none"}`).join("; ") +
    ".",
  "",
  `Apply time of one edit near the end of a ${(apply.replace!.bytes / 1024 / 1024).toFixed(1)} MB file (read, match, write, diff), 15 runs, in process:`,
  "",
  "| request | median | p90 | target |",
  "|---|---|---|---|",
  ...Object.entries(apply).map(([name, t]) => `| ${name} | ${t.medianMs} ms | ${t.p90Ms} ms | ≤ 50 ms: ${t.medianMs <= 50 ? "met" : "missed"} |`),
  "",
  "Peers: see the note on the original omp and opencode below.",
  "",
];
writeFileSync(join(RESULTS, "edits.md"), md.join("\n"));
console.log(md.join("\n"));
