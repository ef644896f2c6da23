// Helpers for the agent's end-to-end tests: a temp git repository and HOME, omp pointed at the
// provider stand-in exactly as a user points it at a real endpoint, and readers for what the
// stand-in received in each provider's wire format.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { afterAll, setDefaultTimeout } from "bun:test";
import { OMP, cleanEnv, tempDir } from "./omp.ts";
import { type RecordedRequest, type Standin, startStandin } from "./standin/index.ts";

export { type ProviderApi, type ProviderCase, providerCases } from "./provider-cases.ts";
import { type ProviderApi, type ProviderCase, providerCases } from "./provider-cases.ts";

/** describe.each rows: each provider case under its wire API's name. */
export function providerTable(): [string, ProviderCase][] {
  return providerCases().map((c) => [c.api, c]);
}

/**
 * For an agent e2e test file, called at its top level: the provider stand-in its tests share,
 * closed after them, and the timeout they need (bunfig.toml's [test] timeout is not read by this
 * Bun; spawning the binary takes more than the default 5 s on a busy machine).
 */
export async function agentTestFile(): Promise<Standin> {
  setDefaultTimeout(60_000);
  const standin = await startStandin();
  afterAll(() => standin.close());
  return standin;
}

export interface Workspace {
  home: string;
  repo: string;
}

/** git in a test's repository, with a fixed author and no user or system config; its exit code and output. */
export function runGit(cwd: string, ...args: string[]): { exitCode: number; output: string; stdout: string } {
  const result = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: result.exitCode, output: result.stdout.toString() + result.stderr.toString(), stdout: result.stdout.toString() };
}

/** git as a test's user runs it ({@link runGit}), failing the test when git fails; its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  const result = runGit(cwd, ...args);
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.output}`);
  return result.stdout.trim();
}

/** A temp HOME and, inside the temp dir next to it, a committed git repository holding `files`. */
export function workspace(files: Record<string, string> = DEFAULT_FILES): Workspace {
  const home = tempDir("omp-agent-home-");
  const repo = tempDir("omp-agent-repo-");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "initial");
  return { home, repo };
}

export const DEFAULT_FILES: Record<string, string> = {
  "src/math.sh": "add() {\n  echo $(( $1 - $2 ))\n}\n",
  "test.sh": '#!/bin/sh\n. ./src/math.sh\nout=$(add 2 3)\nif [ "$out" = "5" ]; then echo "PASS add 2 3 = 5"; else echo "FAIL add 2 3 = $out"; exit 1; fi\n',
  "README.md": "# demo\n",
};

export interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface AgentRunOptions {
  home: string;
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** A command omp runs under (`/usr/bin/time`, `prlimit`), its arguments before omp's. */
  wrapper?: string[];
}

/** Env every agent test sets: fast retries. */
export function agentEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { OMP_RETRY_BASE_MS: "20", ...extra };
}

export function spawnOmp(args: string[], options: AgentRunOptions & { stdinPipe?: boolean }): Subprocess<"pipe", "pipe", "pipe"> {
  return Bun.spawn([...(options.wrapper ?? []), OMP, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.home, agentEnv(options.env)),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Runs omp to completion; stdin is closed at once (after writing `stdin`, when given). */
export async function runAgent(args: string[], options: AgentRunOptions): Promise<AgentRun> {
  const child = spawnOmp(args, options);
  if (options.stdin !== undefined) child.stdin.write(options.stdin);
  child.stdin.end();
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Reads a child's stdout line by line, so a test can wait for a given event instead of sleeping. */
export class LineReader {
  readonly lines: string[] = [];
  private buffer = "";
  private waiters: { test: (line: string) => boolean; from: number; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  private ended = false;
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = this.pump(stream);
  }

  /** Everything received so far, including a last line without its newline yet. */
  get text(): string {
    return this.lines.map((line) => `${line}\n`).join("") + this.buffer;
  }

  private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      this.buffer += decoder.decode(chunk, { stream: true });
      this.checkText();
      let newline = this.buffer.indexOf("\n");
      while (newline !== -1) {
        this.push(this.buffer.slice(0, newline));
        this.buffer = this.buffer.slice(newline + 1);
        newline = this.buffer.indexOf("\n");
      }
    }
    if (this.buffer) this.push(this.buffer);
    this.buffer = "";
    this.ended = true;
    for (const waiter of this.waiters) waiter.reject(new Error(`stream ended before the awaited line; got:\n${this.lines.join("\n")}`));
    this.waiters = [];
    for (const waiter of this.textWaiters) waiter.reject(new Error(`stream ended before the awaited text; got:\n${this.text}`));
    this.textWaiters = [];
  }

  private textWaiters: { needle: string; resolve: () => void; reject: (e: Error) => void }[] = [];

  private checkText(): void {
    if (this.textWaiters.length === 0) return;
    const text = this.text;
    this.textWaiters = this.textWaiters.filter((waiter) => {
      if (!text.includes(waiter.needle)) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once the output so far contains `needle`, complete line or not. */
  waitForText(needle: string, timeoutMs = 20_000): Promise<void> {
    if (this.text.includes(needle)) return Promise.resolve();
    if (this.ended) return Promise.reject(new Error(`stream ended before the awaited text; got:\n${this.text}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${JSON.stringify(needle)}; got:\n${this.text}`)), timeoutMs);
      this.textWaiters.push({
        needle,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  private push(line: string): void {
    this.lines.push(line);
    const index = this.lines.length - 1;
    this.waiters = this.waiters.filter((waiter) => {
      if (index >= waiter.from && waiter.test(line)) {
        waiter.resolve(line);
        return false;
      }
      return true;
    });
  }

  /** The first line at or after index `from` that passes `test`. */
  waitFor(test: (line: string) => boolean, from = 0, timeoutMs = 20_000): Promise<string> {
    const found = this.lines.slice(from).find(test);
    if (found !== undefined) return Promise.resolve(found);
    if (this.ended) return Promise.reject(new Error(`stream ended before the awaited line; got:\n${this.lines.join("\n")}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a line; got:\n${this.lines.join("\n")}`)), timeoutMs);
      this.waiters.push({
        test,
        from,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }
}

/** JSON frames; non-JSON lines are kept as `{ raw }` so a test sees them fail. */
export function frames(lines: string[]): any[] {
  return lines.filter((line) => line.trim() !== "").map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return { raw: line };
    }
  });
}

/** Every file under `dir`, recursively. */
export function walk(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) out.push(...walk(path));
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

/** The session files under a HOME, oldest first (file names start with the creation time). */
export function sessionFiles(home: string): string[] {
  return walk(join(home, ".omp", "agent", "sessions"))
    .filter((path) => path.endsWith(".jsonl"))
    .sort((a, b) => a.split("/").pop()!.localeCompare(b.split("/").pop()!));
}

export function readJsonl(path: string): any[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** Files under `dirs` that contain `needle` (bytes, so binary files such as agent.db count too). */
export function filesContaining(dirs: string[], needle: string): string[] {
  const bytes = Buffer.from(needle);
  return dirs.flatMap(walk).filter((path) => {
    try {
      return readFileSync(path).includes(bytes);
    } catch {
      return false;
    }
  });
}

/** The model requests (POSTs) the stand-in received. */
export function modelRequests(standin: Standin): RecordedRequest[] {
  return standin.requests.filter((r) => r.method === "POST");
}

// ---- Reading requests in each provider's format -------------------------------------------------

export interface WireToolResult {
  id: string;
  text: string;
  isError?: boolean;
}

const textOfBlocks = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((b: any) => (typeof b?.text === "string" ? b.text : "")).join("") : "";

/** The tool results a request carries, in that provider's own encoding. */
export function toolResultsOf(api: ProviderApi, body: any): WireToolResult[] {
  switch (api) {
    case "anthropic-messages":
      return body.messages.flatMap((m: any) =>
        Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result").map((b: any) => ({ id: b.tool_use_id, text: textOfBlocks(b.content), isError: b.is_error === true })) : [],
      );
    case "openai-completions":
      return body.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_call_id, text: textOfBlocks(m.content) }));
    case "openai-responses":
      return body.input.filter((i: any) => i.type === "function_call_output").map((i: any) => ({ id: i.call_id, text: typeof i.output === "string" ? i.output : textOfBlocks(i.output) }));
    case "google-generative-ai":
      return body.contents.flatMap((c: any) =>
        c.parts
          .filter((p: any) => p.functionResponse)
          .map((p: any) => {
            const response = p.functionResponse.response ?? {};
            return { id: p.functionResponse.name, text: String(response.output ?? response.error ?? ""), isError: response.error !== undefined };
          }),
      );
  }
}

/** The tool calls of earlier assistant turns a request carries back, as [id or name, tool name]. */
export function toolCallsOf(api: ProviderApi, body: any): { id: string; name: string }[] {
  switch (api) {
    case "anthropic-messages":
      return body.messages.flatMap((m: any) => (m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ id: b.id, name: b.name })) : []));
    case "openai-completions":
      return body.messages.flatMap((m: any) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function.name })) : []));
    case "openai-responses":
      return body.input.filter((i: any) => i.type === "function_call").map((i: any) => ({ id: i.call_id, name: i.name }));
    case "google-generative-ai":
      return body.contents.flatMap((c: any) => c.parts.filter((p: any) => p.functionCall).map((p: any) => ({ id: p.functionCall.name, name: p.functionCall.name })));
  }
}

/** The system prompt of a request. */
export function systemPromptOf(api: ProviderApi, body: any): string {
  switch (api) {
    case "anthropic-messages":
      return textOfBlocks(body.system);
    case "openai-completions":
      return body.messages.filter((m: any) => m.role === "system" || m.role === "developer").map((m: any) => textOfBlocks(m.content)).join("\n");
    case "openai-responses":
      return [body.instructions ?? "", ...body.input.filter((i: any) => i.role === "system" || i.role === "developer").map((i: any) => textOfBlocks(i.content))].join("\n");
    case "google-generative-ai":
      return textOfBlocks(body.systemInstruction?.parts);
  }
}

/** The names of the tools a request offers the model. */
/** The tools a request keeps out of its list but names in search_tool_bm25's description ("Not loaded: a, b, …"): found, then loaded, on use. Anthropic's format. */
export function deferredToolNamesOf(body: any): string[] {
  const description: string = (body.tools ?? []).find((t: any) => t.name === "search_tool_bm25")?.description ?? "";
  const listed = /Not loaded: (.*)\.$/.exec(description)?.[1] ?? "";
  return listed.split(", ").filter(Boolean);
}

export function toolNamesOf(api: ProviderApi, body: any): string[] {
  switch (api) {
    case "anthropic-messages":
    case "openai-responses":
      return (body.tools ?? []).map((t: any) => t.name);
    case "openai-completions":
      return (body.tools ?? []).map((t: any) => t.function.name);
    case "google-generative-ai":
      return (body.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name));
  }
}

/** The texts of the user's own messages (not tool results) in a request, in order. */
export function userTextsOf(api: ProviderApi, body: any): string[] {
  switch (api) {
    case "anthropic-messages":
      return body.messages.filter((m: any) => m.role === "user").map((m: any) => (typeof m.content === "string" ? m.content : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("\n"))).filter(Boolean);
    case "openai-completions":
      return body.messages.filter((m: any) => m.role === "user").map((m: any) => textOfBlocks(m.content));
    case "openai-responses":
      return body.input.filter((i: any) => i.role === "user").map((i: any) => (typeof i.content === "string" ? i.content : i.content.map((c: any) => c.text ?? "").join("")));
    case "google-generative-ai":
      return body.contents.filter((c: any) => c.role === "user" && c.parts.some((p: any) => typeof p.text === "string")).map((c: any) => c.parts.map((p: any) => p.text ?? "").join(""));
  }
}

/** The texts of the assistant's earlier replies in a request, in order. */
export function assistantTextsOf(api: ProviderApi, body: any): string[] {
  switch (api) {
    case "anthropic-messages":
      return body.messages.filter((m: any) => m.role === "assistant").map((m: any) => (typeof m.content === "string" ? m.content : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join(""))).filter(Boolean);
    case "openai-completions":
      return body.messages.filter((m: any) => m.role === "assistant").map((m: any) => textOfBlocks(m.content)).filter(Boolean);
    case "openai-responses":
      return body.input.filter((i: any) => i.type === "message" && i.role === "assistant").map((i: any) => textOfBlocks(i.content)).filter(Boolean);
    case "google-generative-ai":
      return body.contents.filter((c: any) => c.role === "model").map((c: any) => c.parts.filter((p: any) => typeof p.text === "string" && !p.thought).map((p: any) => p.text).join("")).filter(Boolean);
  }
}
