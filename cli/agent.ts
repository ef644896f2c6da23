import { fstatSync } from "node:fs";
import { resolve } from "node:path";
import type { Agent } from "../core/agent/agent.ts";
import { expandMentions, attachFile } from "../core/agent/mentions.ts";
import { gitSummary } from "../core/agent/git-summary.ts";
import { Runtime } from "../core/agent/runtime.ts";
import type { ImageContent, TextContent } from "../core/ai/messages.ts";
import { THINKING_LEVELS, isThinkingLevel } from "../core/ai/model.ts";
import { loadAgentConfig } from "../core/config/agent-config.ts";
import type { SettingsInput } from "../core/config/settings-schema.ts";
import { OmpError } from "../core/errors/omp-error.ts";
import { untrustedNotice } from "../core/trust/folder-trust.ts";
import { formatAge, listSessions, mostRecentSession, resolveSession } from "../core/session/listing.ts";
import { sessionDirFor } from "../core/session/paths.ts";
import { type Approver, parseApprovalMode } from "../core/tools/approval.ts";
import { isDirectory } from "../core/tools/paths.ts";
import { expandHome } from "../core/paths.ts";
import { builtinTools, selectTools } from "../core/tools/registry.ts";
import { isTerminal } from "./tty.ts";
import { writeFdQuietly, writeStdout } from "./write.ts";

export interface AgentFlags {
  print?: boolean;
  mode?: string;
  model?: string;
  apiKey?: string;
  thinking?: string;
  approvalMode?: string;
  tools?: string | boolean;
  maxTime?: number;
  maxTurns?: number;
  continue?: boolean;
  resume?: string | boolean;
  session?: boolean;
  sessionDir?: string;
  config?: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  listModels?: boolean;
  trust?: boolean;
  addDir?: string[];
}

const MODES = ["text", "json", "rpc"] as const;

/**
 * Piped or redirected input; nothing from a terminal or a device such as /dev/null. (fstat rather
 * than process.stdin, whose construction loads Node's stream machinery: milliseconds at start-up.)
 */
async function readPipedStdin(): Promise<string> {
  try {
    const stat = fstatSync(0);
    if (!stat.isFIFO() && !stat.isFile() && !stat.isSocket()) return "";
  } catch {
    return "";
  }
  return (await Bun.stdin.text()).trim();
}

function runtimeSettings(flags: AgentFlags): SettingsInput {
  const runtime: SettingsInput = {};
  if (flags.model) runtime.model = flags.model;
  if (flags.thinking) {
    if (!isThinkingLevel(flags.thinking)) throw new OmpError(`--thinking: got ${JSON.stringify(flags.thinking)}, expected one of ${THINKING_LEVELS.join(", ")}`, { exitCode: 2 });
    runtime.thinking = flags.thinking;
  }
  if (flags.approvalMode) {
    try {
      runtime.approvalMode = parseApprovalMode(flags.approvalMode);
    } catch (error) {
      throw new OmpError(`--approval-mode: ${(error as Error).message}`, { exitCode: 2 });
    }
  }
  return runtime;
}

/** `--add-dir` values as absolute paths (`~` expanded, relative to the working directory); each must be a directory. */
function addDirs(dirs: string[] | undefined, cwd: string): string[] {
  return (dirs ?? []).map((dir) => {
    const path = resolve(cwd, expandHome(dir));
    if (!isDirectory(path)) throw new OmpError(`--add-dir: ${dir} is not a directory`, { exitCode: 2 });
    return path;
  });
}

/** The prompt from the arguments: words, `@file` attachments, and piped stdin. */
function buildPrompt(messages: string[], stdin: string, cwd: string): (TextContent | ImageContent)[] {
  const words: string[] = [];
  const attachments: (TextContent | ImageContent)[] = [];
  for (const arg of messages) {
    if (arg.startsWith("@") && arg.length > 1) attachments.push(attachFile(arg.slice(1), cwd));
    else words.push(arg);
  }
  const text = [words.join(" "), stdin].filter(Boolean).join("\n\n");
  if (!text && attachments.length === 0) return [];
  return [...expandMentions(text, cwd), ...attachments];
}

/** The default command: the agent, headless (print, json, rpc). */
export async function runAgent(messages: string[], flags: AgentFlags): Promise<number> {
  const mode = flags.mode ?? "text";
  if (!(MODES as readonly string[]).includes(mode)) throw new OmpError(`--mode: got ${JSON.stringify(mode)}, expected one of ${MODES.join(", ")}`, { exitCode: 2 });
  const cwd = resolve(process.cwd());
  // A terminal on both ends and no -p: the interactive mode, which answers approval prompts once it is up.
  const interactive = !flags.print && mode === "text" && isTerminal(0) && isTerminal(1);
  // git runs while the rest of start-up happens; the system prompt needs its answer. The
  // interactive mode starts it once its first frame is up: spawning git costs milliseconds of
  // the launch, and the answer is only needed when the first prompt is sent.
  let startGit = () => {};
  const git = interactive ? new Promise<string>((resolve) => (startGit = () => resolve(gitSummary(cwd)))) : gitSummary(cwd);
  const env = process.env;
  const { settings, modelsConfig } = await loadAgentConfig({
    cwd,
    env,
    overlays: flags.config,
    runtime: runtimeSettings(flags),
    trustFlag: flags.trust,
    // Only the interactive mode has someone to ask; the others skip and say so on stderr.
    ask: interactive ? async (question) => (await import("./trust-prompt.ts")).askFolderTrust(question) : undefined,
  });
  const toolSelection = flags.tools === false ? { none: true } : typeof flags.tools === "string" ? { only: [flags.tools] } : {};
  const tools = selectTools(
    builtinTools().filter((tool) => !settings.tools.disabled.includes(tool.name)),
    toolSelection,
  );
  const noSession = flags.session === false;
  const approval: { ask?: Approver } = {};
  const runtime = new Runtime({
    cwd,
    env,
    settings,
    modelsConfig,
    tools,
    cliKey: flags.apiKey,
    noSession,
    sessionDir: flags.sessionDir,
    addDirs: addDirs(flags.addDir, cwd),
    maxTurns: flags.maxTurns,
    systemPrompt: { replace: flags.systemPrompt, append: flags.appendSystemPrompt },
    git,
    ...(interactive ? { approver: (request) => approval.ask!(request) } : {}),
  });

  if (flags.listModels) {
    sayUntrusted(cwd);
    const models = await runtime.availableModels();
    await writeStdout(models.map((m) => `${`${m.provider}/${m.id}`.padEnd(48)} ${String(m.contextWindow).padStart(8)}  ${m.name}`).join("\n") + "\n");
    return 0;
  }

  const sessionOptions = { sessionDir: flags.sessionDir ?? settings.sessionDir, env };
  let resumePath: string | undefined;
  if (flags.continue) {
    resumePath = mostRecentSession(cwd, sessionOptions);
    if (!resumePath) throw new OmpError(`no session to continue in ${cwd}; start one without -c`, { exitCode: 2 });
  } else if (typeof flags.resume === "string") {
    resumePath = resolveSession(flags.resume, cwd, sessionOptions);
  } else if (flags.resume === true) {
    const recent = listSessions(sessionDirFor(cwd, sessionOptions), { limit: 20 });
    if (recent.length === 0) throw new OmpError(`no sessions in ${cwd} yet`, { exitCode: 2 });
    const lines = recent.map((s) => `${s.id.slice(0, 8)}  ${formatAge(s.modified).padEnd(8)}  ${String(s.messageCount).padStart(4)} msgs  ${s.title}`);
    await writeStdout(`Recent sessions (resume one with omp -r <id>):\n${lines.join("\n")}\n`);
    return 0;
  }

  const selection = await runtime.selectModel(flags.model ?? settings.model);
  if (mode === "rpc") {
    const { runRpcMode } = await import("./modes/rpc.ts");
    const agent = await runtime.createAgent(selection, resumePath);
    sayUntrusted(cwd);
    return runRpcMode(runtime, agent);
  }

  preconnect(selection.model.baseUrl, env);
  if (interactive) {
    const { runInteractive } = await import("./interactive/index.ts");
    return runInteractive({ runtime, selection, resumePath, initialPrompt: messages.join(" ") || undefined, approval, onFirstFrame: startGit, trustNotice: untrustedNotice(cwd) });
  }
  const stdin = await readPipedStdin();
  const prompt = buildPrompt(messages, stdin, cwd);
  if (prompt.length === 0) {
    throw new OmpError('no prompt: give one as arguments (omp -p "fix the failing test"), with @file, or on stdin', { exitCode: 2 });
  }

  const agent = await runtime.createAgent(selection, resumePath);
  sayUntrusted(cwd);
  const stopTimer = limitTime(agent, flags.maxTime);
  try {
    if (mode === "json") {
      const { runJsonMode } = await import("./modes/json.ts");
      const header = agent.writer?.header ?? { type: "session", version: 3, id: "none", timestamp: new Date().toISOString(), cwd };
      return await runJsonMode(agent, prompt, { ...header, model: `${selection.model.provider}/${selection.model.id}`, sessionFile: agent.writer?.path ?? null });
    }
    const { runPrintMode } = await import("./modes/print.ts");
    return await runPrintMode(agent, prompt);
  } finally {
    stopTimer();
    agent.writer?.close();
  }
}

/**
 * The one line on stderr saying what an untrusted folder was not allowed to do (the interactive
 * mode shows it in its UI instead). Said once the agent exists, so that what other loaders
 * (hooks, extensions, MCP servers) skipped is on the same line.
 */
function sayUntrusted(cwd: string): void {
  const notice = untrustedNotice(cwd);
  if (notice) writeFdQuietly(2, `${notice}\n`);
}

/**
 * Opens the connection to the provider (DNS, TCP, TLS) while the rest of start-up runs, so the
 * first request does not wait for it. Skipped behind a proxy, which fetch applies on its own.
 */
function preconnect(baseUrl: string, env: NodeJS.ProcessEnv): void {
  if (["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"].some((name) => env[name])) return;
  try {
    const url = new URL(baseUrl);
    if (url.protocol === "https:" || url.protocol === "http:") fetch.preconnect(url.origin);
  } catch {
    // An invalid base URL is reported by the request itself.
  }
}

function limitTime(agent: Agent, seconds: number | undefined): () => void {
  if (seconds === undefined) return () => {};
  const timer = setTimeout(() => agent.abort("max_time", `stopped after ${seconds} s (--max-time)`), seconds * 1000);
  return () => clearTimeout(timer);
}
