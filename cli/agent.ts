import { fstatSync } from "node:fs";
import { resolve } from "node:path";
import type { Agent } from "../core/agent/agent.ts";
import { expandMentions, attachFile } from "../core/agent/mentions.ts";
import { gitSummary } from "../core/agent/git-summary.ts";
import { type ModelSelection, Runtime } from "../core/agent/runtime.ts";
import type { ImageContent, TextContent } from "../core/ai/messages.ts";
import { THINKING_LEVELS, isThinkingLevel } from "../core/ai/model.ts";
import { loadDotenv } from "../core/config/dotenv.ts";
import { loadModelsConfig } from "../core/config/models.ts";
import type { SettingsInput } from "../core/config/settings-schema.ts";
import { loadSettings } from "../core/config/settings.ts";
import { OmpError } from "../core/errors/omp-error.ts";
import { displayPath } from "../core/paths.ts";
import { formatAge, listSessions, mostRecentSession, resolveSession } from "../core/session/listing.ts";
import { sessionDirFor } from "../core/session/paths.ts";
import { type Approver, parseApprovalMode } from "../core/tools/approval.ts";
import { builtinTools, selectTools } from "../core/tools/registry.ts";
import { misplacedCommand } from "./command-words.ts";
import { isTerminal } from "./tty.ts";
import { writeStdout } from "./write.ts";

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
  if (!flags.print && mode === "text") {
    const hint = misplacedCommand(messages);
    if (hint) throw new OmpError(hint, { exitCode: 2 });
  }
  // A terminal on both ends and no -p: the interactive mode, which answers approval prompts once it is up.
  const interactive = !flags.print && mode === "text" && isTerminal(0) && isTerminal(1);
  // git runs while the rest of start-up happens; the system prompt needs its answer. The
  // interactive mode starts it once its first frame is up: spawning git costs milliseconds of
  // the launch, and the answer is only needed when the first prompt is sent.
  let startGit = () => {};
  const git = interactive ? new Promise<string>((resolve) => (startGit = () => resolve(gitSummary(cwd)))) : gitSummary(cwd);
  loadDotenv({ cwd, env: process.env });
  const env = process.env;
  const { settings } = loadSettings({ cwd, overlays: flags.config, runtime: runtimeSettings(flags), env });
  const { config: modelsConfig } = loadModelsConfig({ cwd, env });
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
    maxTurns: flags.maxTurns,
    systemPrompt: { replace: flags.systemPrompt, append: flags.appendSystemPrompt },
    git,
    ...(flags.thinking && isThinkingLevel(flags.thinking) ? { thinking: flags.thinking } : {}),
    // The interactive mode asks the user; rpc asks its host (extension_ui_request).
    ...(interactive || mode === "rpc" ? { approver: (request) => approval.ask!(request) } : {}),
  });

  if (flags.listModels) {
    const models = await runtime.availableModels();
    await writeStdout(models.map((m) => `${`${m.provider}/${m.id}`.padEnd(48)} ${String(m.contextWindow).padStart(8)}  ${m.name}`).join("\n") + "\n");
    return 0;
  }

  const sessionOptions = { sessionDir: flags.sessionDir ?? settings.sessionDir, env };
  let resumePath: string | undefined;
  const damaged: string[] = [];
  if (flags.continue) {
    resumePath = mostRecentSession(cwd, { ...sessionOptions, damaged });
    for (const path of damaged) process.stderr.write(`omp: skipped ${displayPath(path)}: damaged (its first line is not a session header)\n`);
    if (!resumePath) throw new OmpError(`no session to continue in ${cwd}; start one without -c`, { exitCode: 2 });
  } else if (typeof flags.resume === "string") {
    resumePath = resolveSession(flags.resume, cwd, sessionOptions);
  } else if (flags.resume === true) {
    const recent = listSessions(sessionDirFor(cwd, sessionOptions), { limit: 20, damaged });
    if (recent.length === 0 && damaged.length === 0) throw new OmpError(`no sessions in ${cwd} yet`, { exitCode: 2 });
    const lines = recent.map((s) => `${s.id.slice(0, 8)}  ${formatAge(s.modified).padEnd(8)}  ${String(s.messageCount).padStart(4)} msgs  ${s.title}`);
    lines.push(...damaged.map((path) => `damaged   ${displayPath(path)} (its first line is not a session header)`));
    await writeStdout(`Recent sessions (resume one with omp -r <id>):\n${lines.join("\n")}\n`);
    return 0;
  }

  const pick = () => chooseModel(runtime, flags, settings.model, resumePath);
  const selection = interactive ? await (await import("./first-run.ts")).selectWithSetup(runtime, pick) : await pick();
  if (selection.warning && !interactive) process.stderr.write(`omp: ${selection.warning}\n`);
  // The providers' model lists, at most daily, for the long-lived modes; a print run is too short to wait for them.
  const refreshLists = () => void runtime.refreshModelLists().catch(() => undefined);
  if (mode === "rpc") {
    const { runRpcMode } = await import("./modes/rpc.ts");
    refreshLists();
    return runRpcMode(runtime, await runtime.createAgent(selection, resumePath), selection, approval);
  }

  preconnect(selection.model.baseUrl, env);
  if (interactive) {
    const { runInteractive } = await import("./interactive/index.ts");
    const onFirstFrame = () => {
      startGit();
      refreshLists();
    };
    return runInteractive({ runtime, selection, resumePath, initialPrompt: messages.join(" ") || undefined, approval, onFirstFrame });
  }
  const stdin = await readPipedStdin();
  const prompt = buildPrompt(messages, stdin, cwd);
  if (prompt.length === 0) {
    throw new OmpError('no prompt: give one as arguments (omp -p "fix the failing test"), with @file, or on stdin', { exitCode: 2 });
  }

  const agent = await runtime.createAgent(selection, resumePath);
  for (const warning of agent.warnings) process.stderr.write(`omp: ${warning}\n`);
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
 * The model of the run: `--model` when given (a resumed session records the switch), else a
 * resumed session's own model and thinking level, else the setting or the default.
 */
async function chooseModel(runtime: Runtime, flags: AgentFlags, setting: string | undefined, resumePath: string | undefined): Promise<ModelSelection> {
  if (resumePath && !flags.model) {
    const restored = await runtime.sessionSelection(resumePath, true);
    if (restored.warning) process.stderr.write(`omp: ${restored.warning}\n`);
    if (restored.selection) return restored.selection;
  }
  return runtime.selectModel(flags.model ?? setting);
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
