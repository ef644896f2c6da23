/**
 * The edit corpus through the peers that install from npm here — opencode (`opencode-ai`) and the
 * original omp (`@oh-my-pi/pi-coding-agent`, its replace edit) — against the same provider
 * stand-in, for bench/edits.ts: one print-mode run that reads every file, lets a bash call change
 * the stale cases' files, then sends every edit in the peer's own edit tool. Judged exactly as
 * omp's runs are (test/support/edit-corpus.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CASES, type Outcome, casePath, judge, setUpCase } from "../test/support/edit-corpus.ts";
import { type RecordedRequest, type ScriptedToolCall, startStandin } from "../test/support/standin/index.ts";

export interface Peer {
  name: string;
  /** npm package@version and the bin it provides. */
  pkg: string;
  bin: string;
  args: string[];
  /** Writes the peer's config pointing at the stand-in; returns extra environment. */
  configure(repo: string, home: string, url: string): Record<string, string>;
  read(path: string, absolute: string): Record<string, unknown>;
  bash(command: string): Record<string, unknown>;
  edit(path: string, absolute: string, old: string, replacement: string): Record<string, unknown>;
  /** The call that fetches a web page as Markdown with the peer's own tool. */
  fetch(url: string): ScriptedToolCall;
}

export const PEERS: Peer[] = [
  {
    name: "opencode",
    pkg: "opencode-ai@1.18.33",
    bin: "opencode",
    args: ["run", "edit the files"],
    configure(repo, _home, url) {
      // The stand-in as Anthropic's API; no title request (it would take a scripted turn).
      const config = {
        provider: { anthropic: { options: { baseURL: `${url}/v1`, apiKey: "sk-bench" } } },
        model: "anthropic/claude-sonnet-4-5",
        small_model: "anthropic/claude-sonnet-4-5",
        agent: { title: { disable: true } },
        permission: { edit: "allow", bash: "allow" },
      };
      writeFileSync(join(repo, "opencode.json"), JSON.stringify(config));
      return { OPENCODE_DISABLE_AUTOUPDATE: "1" };
    },
    read: (_path, filePath) => ({ filePath }),
    bash: (command) => ({ command, description: "change the file" }),
    edit: (_path, filePath, oldString, newString) => ({ filePath, oldString, newString }),
    fetch: (url) => ({ name: "webfetch", arguments: { url, format: "markdown" } }),
  },
  {
    name: "original omp",
    // 18.3.4, the newest, pins @oh-my-pi/omp-stats@18.3.4, which the reachable registry lacks.
    pkg: "@oh-my-pi/pi-coding-agent@18.2.3",
    bin: "omp",
    args: ["-p", "--model", "anthropic/claude-sonnet-4-5", "edit the files"],
    configure: (_repo, _home, url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-bench", PI_EDIT_VARIANT: "replace" }),
    read: (path) => ({ path }),
    bash: (command) => ({ command }),
    edit: (path, _absolute, old_string, new_string) => ({ i: "apply the change", path, old_string, new_string }),
    // Its read takes URLs through its fetch pipeline.
    fetch: (url) => ({ name: "read", arguments: { path: url } }),
  },
];

/** Where the peers are installed, one folder each, for every benchmark that runs them. */
export const PEERS_DIR = join(import.meta.dir, "work", "peers");

/** The peer from npm under `dir` (installed there on first use); undefined when it cannot be installed. */
export function peerBin(peer: Peer, dir = join(PEERS_DIR, peer.bin)): string | undefined {
  const bin = join(dir, "node_modules", ".bin", peer.bin);
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund", "--prefix", dir, peer.pkg], { stdout: "ignore", stderr: "ignore" });
  }
  return existsSync(bin) ? bin : undefined;
}

export interface PeerRun {
  outcomes: Record<string, Outcome>;
  /** Damaged cases whose file differs from the expected one only in trailing whitespace. */
  trailingOnly: string[];
  seconds: number;
}

/** The tool results an Anthropic Messages request carries back, by tool_use_id. */
export function toolResults(request: RecordedRequest | undefined): Map<string, { text: string; isError: boolean }> {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of request?.body?.messages ?? []) {
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block.type !== "tool_result") continue;
      const text = typeof block.content === "string" ? block.content : block.content.map((b: { text?: string; type?: string }) => b.text ?? (b.type ? `[${b.type}]` : "")).join("");
      results.set(block.tool_use_id, { text, isError: block.is_error === true });
    }
  }
  return results;
}

/** A peer's environment for a run in `repo` with its own `home`, configured for the stand-in at `url`. */
export function peerEnv(peer: Peer, repo: string, home: string, url: string): Record<string, string> {
  // The original omp is a bun script: it gets this project's bun.
  return { PATH: `${join(import.meta.dir, "..", "node_modules", ".bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local", "share"), XDG_CACHE_HOME: join(home, ".cache"), ...peer.configure(repo, home, url) };
}

/** `work` is outside any repository: a peer would otherwise take this one's config and formatters. */
export async function runPeer(peer: Peer, bin: string, work = tmpdir()): Promise<PeerRun> {
  const standin = await startStandin();
  try {
    const home = mkdtempSync(join(work, `edits-${peer.bin}-home-`));
    const repo = mkdtempSync(join(work, `edits-${peer.bin}-repo-`));
    mkdirSync(join(repo, ".stale"));
    const reads: ScriptedToolCall[] = [];
    const changes: ScriptedToolCall[] = [];
    const edits: ScriptedToolCall[] = [];
    for (const [i, c] of CASES.entries()) {
      setUpCase(repo, c);
      const absolute = join(repo, casePath(c));
      if (c.name !== "create-missing") reads.push({ id: `toolu_read_${i}`, name: "read", arguments: peer.read(casePath(c), absolute) });
      if (c.changedAfterRead !== undefined) {
        writeFileSync(join(repo, ".stale", c.name), c.changedAfterRead);
        changes.push({ id: `toolu_bash_${i}`, name: "bash", arguments: peer.bash(`cp .stale/${c.name} ${casePath(c)}`) });
      }
      edits.push({ id: `toolu_edit_${i}`, name: "edit", arguments: peer.edit(casePath(c), absolute, c.old, c.new) });
    }
    standin.setScript([{ toolCalls: reads }, { toolCalls: changes }, { toolCalls: edits }, { text: "done" }]);
    const env = peerEnv(peer, repo, home, standin.url);
    const started = performance.now();
    const child = Bun.spawn([bin, ...peer.args], { cwd: repo, env, stdout: "pipe", stderr: "pipe", timeout: 300_000 });
    const [, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`${peer.name} exited ${code}: ${stderr.slice(-2000)}`);
    const results = toolResults(standin.requests.filter((r) => r.method === "POST").at(-1));
    const outcomes: Record<string, Outcome> = {};
    const trailingOnly: string[] = [];
    for (const [i, c] of CASES.entries()) {
      const result = results.get(`toolu_edit_${i}`);
      // Each peer words its success its own way; what counts is whether the call failed.
      const outcome = judge(repo, c, result && { text: result.isError ? result.text : `Edited ${result.text}`, isError: result.isError });
      outcomes[c.name] = outcome;
      const target = join(repo, c.name, c.linkTo ?? c.file);
      if (outcome === "damaged" && typeof c.expected === "string" && existsSync(target)) {
        const strip = (text: string) => text.replace(/[ \t]+$/gm, "");
        if (strip(readFileSync(target, "utf8")) === strip(c.expected)) trailingOnly.push(c.name);
      }
    }
    return { outcomes, trailingOnly, seconds };
  } finally {
    await standin.close();
  }
}
