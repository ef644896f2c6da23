import { readFileSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { loadSettings } from "../../core/config/settings.ts";
import { isFile } from "../../core/fs/dir-entry.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { displayPath } from "../../core/paths.ts";
import { discoverRules } from "../../core/rules/discover.ts";
import { type Rule, parseRule } from "../../core/rules/rule.ts";
import { bucketRules } from "../../core/rules/rulebook.ts";
import { type MatchContext, type StreamSource, type TtsrRule, compileRule, explainMatch } from "../../core/rules/ttsr.ts";
import { folderTrust } from "../../core/trust/folder-trust.ts";
import { writeStdout } from "../shared/write.ts";

/** A sample bigger than this is refused: rules watch one reply, not a corpus. */
const MAX_SAMPLE = 4 * 1024 * 1024;

function sessionRules() {
  const cwd = resolve(process.cwd());
  const { settings } = loadSettings({ cwd, env: process.env, trusted: folderTrust(cwd).trusted });
  return bucketRules(discoverRules(cwd, process.env), settings.ttsr);
}

/** `omp ttsr list [--json]`: the stream rules a session here watches, the other rules, and the files left out with why. */
export async function runTtsrList(options: { json?: boolean }): Promise<number> {
  const book = sessionRules();
  if (options.json) {
    await writeStdout(`${JSON.stringify({ stream: book.stream, alwaysApply: book.alwaysApply, listed: book.listed, skipped: book.skipped, warnings: book.warnings }, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  if (book.stream.length === 0) lines.push("No stream rules (rule files with a condition) apply here.");
  else lines.push("Stream rules:");
  for (const rule of book.stream) {
    lines.push(`  ${rule.name}  ${displayPath(rule.path)}`);
    if (rule.condition) lines.push(`    condition: ${rule.condition.join(" | ")}`);
    if (rule.astCondition) lines.push(`    astCondition: ${rule.astCondition.join(" | ")}`);
    lines.push(`    scope: ${rule.scope?.join(", ") ?? "text, every tool"}${rule.globs ? `  globs: ${rule.globs.join(", ")}` : ""}${rule.interruptMode ? `  interruptMode: ${rule.interruptMode}` : ""}`);
    if (rule.description) lines.push(`    ${rule.description}`);
  }
  for (const [title, rules] of [["Always applied (in the system prompt):", book.alwaysApply], ["Listed (read as rule://<name>):", book.listed]] as const) {
    if (rules.length === 0) continue;
    lines.push(title);
    for (const rule of rules) lines.push(`  ${rule.name}  ${displayPath(rule.path)}`);
  }
  if (book.skipped.length > 0) {
    lines.push("Skipped:");
    for (const skipped of book.skipped) lines.push(`  ${displayPath(skipped.path)}: ${skipped.reason}`);
  }
  for (const warning of book.warnings) lines.push(`warning: ${warning}`);
  await writeStdout(`${lines.join("\n")}\n`);
  return 0;
}

export interface TtsrTestFlags {
  rule?: string[];
  source?: string;
  tool?: string;
  path?: string;
  file?: string;
  verbose?: boolean;
  json?: boolean;
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of Bun.stdin.stream()) {
    text += new TextDecoder().decode(chunk, { stream: true });
    if (text.length > MAX_SAMPLE) throw new OmpError(`ttsr test: the sample on stdin is over ${MAX_SAMPLE / 1024 / 1024} MB; test a smaller part of it`, { exitCode: EXIT_USAGE });
  }
  return text;
}

function readSample(path: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new OmpError(`ttsr test: no file ${path}; give the sample as words, --file <path>, or - for stdin`, { exitCode: EXIT_USAGE });
  }
  if (size > MAX_SAMPLE) throw new OmpError(`ttsr test: ${path} is over ${MAX_SAMPLE / 1024 / 1024} MB; test a smaller part of it`, { exitCode: EXIT_USAGE });
  return readFileSync(path, "utf8");
}

/** The rules under test: the --rule files as given, else the stream rules a session here watches. */
function rulesUnderTest(files: readonly string[] | undefined): TtsrRule[] {
  if (!files?.length) {
    const rules = sessionRules().stream;
    if (rules.length === 0) throw new OmpError("ttsr test: no stream rules apply here (`omp ttsr list` says why); name a rule file with --rule", { exitCode: EXIT_USAGE });
    return rules.map((rule) => compileRule(rule).compiled!);
  }
  return files.map((file) => {
    const path = resolve(file);
    if (!isFile(path)) throw new OmpError(`ttsr test: no rule file ${file}`, { exitCode: EXIT_USAGE });
    const rule: Rule = parseRule(basename(path).replace(/\.mdc?$/, ""), path, "project", readFileSync(path, "utf8"));
    const { compiled, skipped, warnings } = compileRule(rule);
    if (!compiled) throw new OmpError(`ttsr test: ${file} is not a stream rule: ${[skipped, ...warnings].join("; ")}`, { exitCode: EXIT_USAGE });
    return compiled;
  });
}

/**
 * `omp ttsr test [sample…]`: which rules fire on a sample, in the context a stream would give it
 * (--source, --tool, --path). A single argument naming a file tests its content as an edit of it;
 * `-` or `--file -` reads stdin. Exit 0 when a rule fires, 1 when none does, 2 on bad usage.
 */
export async function runTtsrTest(words: string[], flags: TtsrTestFlags): Promise<number> {
  const source = (flags.source ?? undefined) as StreamSource | undefined;
  if (source !== undefined && !["text", "thinking", "tool"].includes(source)) throw new OmpError(`ttsr test: --source is text, thinking or tool, not ${JSON.stringify(flags.source)}`, { exitCode: EXIT_USAGE });
  let sample: string;
  let path = flags.path;
  let implied: StreamSource | undefined;
  if (flags.file !== undefined) {
    if (words.length > 0) throw new OmpError("ttsr test: give the sample as words or with --file, not both", { exitCode: EXIT_USAGE });
    sample = flags.file === "-" ? await readStdin() : readSample(flags.file);
  } else if (words.length === 1 && words[0] === "-") sample = await readStdin();
  else if (words.length === 1 && isFile(words[0]!)) {
    sample = readSample(words[0]!);
    path ??= words[0];
    implied = "tool";
  } else if (words.length > 0) sample = words.join(" ");
  else throw new OmpError("ttsr test: no sample; give it as words, a file, --file <path>, or - for stdin", { exitCode: EXIT_USAGE });
  const rules = rulesUnderTest(flags.rule);
  const resolvedSource = source ?? (flags.tool ? "tool" : implied) ?? "text";
  const context: MatchContext = { source: resolvedSource, ...(resolvedSource === "tool" ? { toolName: flags.tool ?? "edit" } : {}), ...(path ? { path } : {}), ast: true };
  const results = rules.map((rule) => ({ rule: rule.rule, why: explainMatch(rule, sample, context) }));
  const fired = results.filter((result) => result.why === undefined);
  if (flags.json) {
    await writeStdout(`${JSON.stringify({ context, fired: fired.map((result) => ({ name: result.rule.name, path: result.rule.path })), notFired: results.filter((result) => result.why !== undefined).map((result) => ({ name: result.rule.name, path: result.rule.path, reason: result.why })) }, null, 2)}\n`);
  } else {
    const where = `${context.source}${context.toolName ? ` (${context.toolName}${context.path ? ` ${context.path}` : ""})` : context.path ? ` (${context.path})` : ""}`;
    const lines = fired.length > 0 ? [`Fired on ${where}:`, ...fired.map((result) => `  ${result.rule.name}  ${displayPath(result.rule.path)}`)] : [`No rule fired on ${where}.`];
    if (flags.verbose) for (const result of results) if (result.why !== undefined) lines.push(`  not ${result.rule.name}: ${result.why}`);
    await writeStdout(`${lines.join("\n")}\n`);
  }
  return fired.length > 0 ? 0 : EXIT_FAILURE;
}

/** Bounds of a scan: files looked at, and the size of one. */
const SCAN_MAX_FILES = 20_000;
const SCAN_MAX_BYTES = 1024 * 1024;

/**
 * `omp ttsr scan [paths…]`: the files (under the paths, default the current folder; ignore files
 * honoured) whose content a rule would fire on as an edit of them, one `path: rule` line each.
 * Exit 0 when a rule fires somewhere, 1 when none does, 2 on bad usage.
 */
export async function runTtsrScan(paths: string[], flags: { rule?: string[]; json?: boolean }): Promise<number> {
  const rules = rulesUnderTest(flags.rule);
  const { natives } = await import("../../core/natives/index.ts");
  const hits: { path: string; rules: string[] }[] = [];
  let limited = false;
  for (const given of paths.length > 0 ? paths : ["."]) {
    const root = resolve(given);
    let stat;
    try {
      stat = statSync(root);
    } catch {
      throw new OmpError(`ttsr scan: no file or folder ${given}`, { exitCode: EXIT_USAGE });
    }
    const files = stat.isFile()
      ? [{ path: root, size: stat.size }]
      : await natives()
          .glob({ patterns: ["**/*"], root, kinds: ["file"], hidden: false, respectIgnore: true, maxResults: SCAN_MAX_FILES })
          .then((result) => {
            limited ||= result.limitReached;
            return result.entries.map((entry) => ({ path: join(root, entry.path), size: entry.size }));
          });
    for (const file of files) {
      if (file.size > SCAN_MAX_BYTES) continue;
      const text = readFileSync(file.path, "utf8");
      if (text.includes("\u0000")) continue;
      const shown = relative(process.cwd(), file.path) || basename(file.path);
      const context: MatchContext = { source: "tool", toolName: "edit", path: shown, ast: true };
      const fired = rules.filter((rule) => explainMatch(rule, text, context) === undefined).map((rule) => rule.rule.name);
      if (fired.length > 0) hits.push({ path: shown, rules: fired });
    }
  }
  if (flags.json) await writeStdout(`${JSON.stringify({ hits, limited }, null, 2)}\n`);
  else {
    const lines = hits.map((hit) => `${hit.path}: ${hit.rules.join(", ")}`);
    if (limited) lines.push(`(stopped after ${SCAN_MAX_FILES} files: scan a smaller folder)`);
    await writeStdout(lines.length > 0 ? `${lines.join("\n")}\n` : "No file matches a rule.\n");
  }
  return hits.length > 0 ? 0 : EXIT_FAILURE;
}
