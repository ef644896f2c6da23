import { setWarningSink } from "../../core/errors/user-warnings.ts";
import { existsSync, fstatSync } from "node:fs";
import { resolve } from "node:path";
import { attachFile } from "../../core/extensions/mentions.ts";
import { gitSummary } from "../../core/agent/git-summary.ts";
import type { ImageContent, TextContent } from "../../core/ai/messages.ts";
import { THINKING_LEVELS, isThinkingLevel } from "../../core/ai/model.ts";
import type { SettingsInput } from "../../core/config/settings-schema.ts";
import { parseSandboxMode } from "../../core/sandbox/startup.ts";
import { selectProfile } from "../../core/config/profiles.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { displayPath } from "../../core/paths.ts";
import { untrustedNotice } from "../../core/trust/folder-trust.ts";
import { changedNotice, changedParts } from "../../core/trust/content-pins.ts";
import { askTrustChanges } from "../../core/session-host/trust-changes.ts";
import { endStartUp } from "../../core/agent/start-up-jit.ts";
import { projectSessionDirs } from "../../core/session/paths.ts";
import { NO_HEADER } from "../../core/session/title-slot.ts";
import { parseApprovalFlag } from "../../core/tools/approval.ts";
import { startMode } from "../shared/start-mode.ts";
import type { Extensions } from "../../core/extensions/extensions.ts";
import { assembleSession, chooseModel } from "../../core/session-host/assemble.ts";
import { ApprovalRequests, QuestionRequests, SessionHost } from "../../core/session-host/host.ts";
import { misplacedCommand } from "../options/command-words.ts";
import { modelList, roleFlags } from "../options/role-flags.ts";
import { type AgentFlags, OUTPUT_MODES } from "../options/agent-options.ts";
import { isTerminal } from "../shared/tty.ts";
import { writeFdQuietly, writeStdout } from "../shared/write.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";


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
    if (!isThinkingLevel(flags.thinking)) throw new OmpError(`--thinking: got ${JSON.stringify(flags.thinking)}, expected one of ${THINKING_LEVELS.join(", ")}`, { exitCode: EXIT_USAGE });
    runtime.thinking = flags.thinking;
  }
  if (flags.approvalMode) {
    try {
      const { approvalMode } = parseApprovalFlag(flags.approvalMode);
      if (approvalMode) runtime.approvalMode = approvalMode;
    } catch (error) {
      throw new OmpError(`--approval-mode: ${(error as Error).message}`, { exitCode: EXIT_USAGE });
    }
  }
  if (flags.sandbox) runtime.sandbox = { mode: parseSandboxMode(flags.sandbox) };
  const roles = roleFlags(flags, process.env);
  if (roles) runtime.modelRoles = roles;
  return runtime;
}

/**
 * The prompt from the arguments: words, `@file` attachments, and piped stdin; the host expands
 * what the words say (a command, `@path` mentions in the text).
 */
function buildPrompt(messages: string[], stdin: string, cwd: string, registry: Extensions, note: (line: string) => void): (TextContent | ImageContent)[] {
  const words: string[] = [];
  const attachments: (TextContent | ImageContent)[] = [];
  for (const arg of messages) {
    // `@file` as its own argument attaches that file; `@pytest.fixture` or `@angular/cli` naming none is text.
    const full = resolve(cwd, arg.slice(1));
    const denied = arg.startsWith("@") ? registry.readDenied(full) : undefined;
    if (denied) throw new OmpError(`${arg}: reading it is denied by the permission rule ${denied}`, { exitCode: EXIT_USAGE });
    if (arg.startsWith("@") && arg.length > 1 && existsSync(full)) attachments.push(attachFile(arg.slice(1), cwd));
    else words.push(arg);
  }
  const said = words.join(" ");
  const text = [said, stdin].filter(Boolean).join("\n\n");
  if (!text && attachments.length === 0) return [];
  for (const arg of messages) if (arg.startsWith("@") && arg.length > 1 && !existsSync(resolve(cwd, arg.slice(1)))) note(`${arg}: no such file (looked in ${cwd}); sent as text`);
  // A command's arguments are the words; piped stdin follows its prompt as a part of its own.
  const parts = said.startsWith("/") && stdin ? [said, stdin] : [text];
  return [...parts.map((part) => ({ type: "text" as const, text: part })), ...attachments];
}

/** Says a line on stderr once: an `@file` argument is also a word of the text, which the host looks at again. */
function onceOnStderr(): (line: string) => void {
  const noted = new Set<string>();
  return (line) => {
    if (noted.has(line)) return;
    noted.add(line);
    process.stderr.write(`omp: ${line}\n`);
  };
}

/** The default command: the agent, headless (print, json, rpc). */
export async function runAgent(messages: string[], flags: AgentFlags): Promise<number> {
  const cleanup: (() => Promise<void>)[] = [];
  try {
    return await runAgentWith(messages, flags, cleanup);
  } finally {
    await Promise.all(cleanup.map((close) => close()));
  }
}

/** How long after the interactive mode's first frame the MCP servers start. */
const MCP_AFTER_FRAME_MS = 50;

async function runAgentWith(messages: string[], flags: AgentFlags, cleanup: (() => Promise<void>)[]): Promise<number> {
  const mode = flags.mode ?? "text";
  selectProfile(flags.profile);
  if (!(OUTPUT_MODES as readonly string[]).includes(mode)) throw new OmpError(`--mode: got ${JSON.stringify(mode)}, expected one of ${OUTPUT_MODES.join(", ")}`, { exitCode: EXIT_USAGE });
  // An editor drives this process over ACP: sessions, their cwd and prompts come from it.
  if (mode === "acp") return (await import("../modes/acp.ts")).runAcp(flags);
  let cwd = resolve(process.cwd());
  if (flags.worktree !== undefined && flags.worktree !== false) {
    const { enterWorktree } = await import("../../core/worktree/session-worktree.ts");
    const entered = enterWorktree(cwd, flags.worktree);
    process.chdir(entered.worktree.path);
    cwd = entered.worktree.path;
    if (entered.trusted) flags.trust = true;
    process.stderr.write(`omp: working in the worktree ${entered.worktree.name} (${cwd})\n`);
    cleanup.push(async () => void process.stderr.write(`omp: ${entered.leave()}\n`));
  }
  if (!flags.print && mode === "text") {
    const hint = misplacedCommand(messages);
    if (hint) throw new OmpError(hint, { exitCode: EXIT_USAGE });
  }
  // A terminal on both ends and no -p: the interactive mode, which answers approval prompts once it is up.
  const interactive = !flags.print && mode === "text" && isTerminal(0) && isTerminal(1);
  // git runs while the rest of start-up happens; the system prompt needs its answer. The
  // interactive mode starts it once its first frame is up: spawning git costs milliseconds of
  // the launch, and the answer is only needed when the first prompt is sent.
  let startGit = () => {};
  const git = interactive ? new Promise<string>((resolve) => (startGit = () => resolve(gitSummary(cwd)))) : gitSummary(cwd);
  const env = process.env;
  // Problems with hooks and extensions: on stderr, or in the interactive mode as notices once it is up.
  const warnings: { say?: (line: string) => void; early: string[] } = { early: [] };
  const warn = (line: string) => {
    if (!interactive) process.stderr.write(`omp: ${line}\n`);
    else if (warnings.say) warnings.say(line);
    else warnings.early.push(line);
  };
  // What core works around (a damaged vault or config file) shows where this mode shows warnings.
  setWarningSink(warn);
  // Approvals are requests on the session host's stream: rpc's host or the interactive mode's overlay answers them.
  const approvals = mode === "rpc" || interactive ? new ApprovalRequests() : undefined;
  // So are the ask tool's questions and plan approvals; print and json have nobody to ask, and no ask tool.
  const questions = approvals ? new QuestionRequests() : undefined;
  const session = await assembleSession({
    cwd,
    env,
    overlays: flags.config,
    runtimeSettings: runtimeSettings(flags),
    trustFlag: flags.trust,
    // Only the interactive mode has someone to ask; the others skip and say so on stderr.
    ...(interactive
      ? {
          askTrust: async (question) => (await import("../shared/trust-prompt.ts")).askFolderTrust(question),
          askChanges: async (question) => (await import("../shared/trust-prompt.ts")).askTrustChanges(question),
        }
      : {}),
    warn,
    toolSelection: flags.tools === false ? { none: true } : typeof flags.tools === "string" ? { only: [flags.tools] } : {},
    extensionPaths: flags.extension ?? [],
    mcpConfigFiles: flags.mcpConfig,
    // The interactive mode starts the MCP servers once its first frame is up.
    deferMcp: interactive,
    ...(approvals ? { approver: approvals.ask } : {}),
    ...(questions ? { questioner: questions.ask } : {}),
    apiKey: flags.apiKey,
    noSession: flags.session === false,
    sessionDir: flags.sessionDir,
    addDirs: flags.addDir,
    allowHosts: flags.allowHost,
    maxTurns: flags.maxTurns,
    systemPrompt: { replace: flags.systemPrompt, append: flags.appendSystemPrompt },
    git,
    ...(flags.thinking && isThinkingLevel(flags.thinking) ? { thinking: flags.thinking } : {}),
    liveCredentials: interactive || mode === "rpc",
    ...(flags.models ? { cycleModels: modelList(flags.models) } : {}),
  });
  cleanup.push(() => session.close());
  const { runtime, mcp } = session;
  // An unknown name in --models is said now, not at the first Ctrl+P.
  if (flags.models) await runtime.cycleCandidates();

  if (flags.listModels) {
    sayUntrusted(cwd);
    const models = await runtime.availableModels();
    await writeStdout(models.map((m) => `${`${m.provider}/${m.id}`.padEnd(48)} ${String(m.contextWindow).padStart(8)}  ${m.name}`).join("\n") + "\n");
    return 0;
  }

  const sessionOptions = runtime.sessionDirOptions();
  let resumePath: string | undefined;
  const damaged: string[] = [];
  // The listing's code loads only for the flags that list or pick a session.
  if (flags.continue) {
    const { mostRecentSession } = await import("../../core/session/listing.ts");
    resumePath = mostRecentSession(cwd, { ...sessionOptions, damaged });
    for (const path of damaged) process.stderr.write(`omp: skipped ${displayPath(path)}: damaged (${NO_HEADER}); move it out of its folder to silence this\n`);
    if (!resumePath) throw new OmpError(`no session to continue in ${cwd}; start one without -c`, { exitCode: EXIT_USAGE });
  } else if (typeof flags.resume === "string") {
    resumePath = (await import("../../core/session/listing.ts")).resolveSession(flags.resume, cwd, sessionOptions);
  } else if (flags.fork !== undefined) {
    resumePath = await (await import("../../core/session/fork.ts")).forkFromCli(flags.fork, { cwd, ...sessionOptions, noSession: flags.session === false });
  } else if (flags.fromClaude !== undefined && flags.fromClaude !== false) {
    resumePath = (await import("../../core/session/import-claude.ts")).importClaudeSession(flags.fromClaude, { cwd, ...sessionOptions, noSession: flags.session === false });
  } else if (flags.fromCodex !== undefined && flags.fromCodex !== false) {
    resumePath = (await import("../../core/session/import-codex.ts")).importCodexSession(flags.fromCodex, { cwd, ...sessionOptions, noSession: flags.session === false });
  } else if (flags.resume === true) {
    const { listSessions, sessionLine, uniqueIdLength } = await import("../../core/session/listing.ts");
    const recent = listSessions(projectSessionDirs(cwd, sessionOptions), { limit: 20, damaged });
    if (recent.length === 0 && damaged.length === 0) throw new OmpError(`no sessions in ${cwd} yet`, { exitCode: EXIT_USAGE });
    const idLength = uniqueIdLength(recent);
    const lines = recent.map((s) => sessionLine(s, undefined, idLength));
    lines.push(...damaged.map((path) => `damaged   ${displayPath(path)} (${NO_HEADER})`));
    await writeStdout(`Recent sessions (resume one with omp -r <id>):\n${lines.join("\n")}\n`);
    return 0;
  }

  const pick = () => chooseModel(runtime, flags.model, resumePath, (line) => process.stderr.write(`omp: ${line}\n`));
  const selection = interactive ? await (await import("./first-run.ts")).selectWithSetup(runtime, pick) : await pick();
  if (selection.warning && !interactive) process.stderr.write(`omp: ${selection.warning}\n`);
  // The providers' model lists, at most daily, for the long-lived modes (a print run is too short
  // to wait for them), a little after start-up so that loading SQLite never delays the first keys.
  const refreshLists = () => void setTimeout(() => void runtime.refreshModelLists().catch(() => undefined), 3000).unref();
  // A skipped skill or command file is reported once, on stderr; the interactive mode shows it as a notice.
  if (!interactive) {
    const { stderr } = await import("../modes/output.ts");
    runtime.extensions.catalog.setReporter((message) => stderr.write(`omp: ${message}\n`));
  }
  if (mode === "rpc") {
    const { runRpcMode } = await import("../modes/rpc.ts");
    const agent = await runtime.createAgent(selection, resumePath);
    sayUntrusted(cwd);
    refreshLists();
    // Files changed since the folder was trusted were skipped; the host is asked whether to trust them from now on.
    const changes = changedParts(cwd, env);
    const onReady = changes.length > 0 ? () => void askTrustChanges(approvals!.ask, cwd, changes, env) : undefined;
    return runRpcMode(startMode(new SessionHost(runtime, agent, selection, approvals, questions), flags), onReady);
  }

  preconnect(selection.model.baseUrl, env);
  if (interactive) {
    const { runInteractive } = await import("../interactive/index.ts");
    const onFirstFrame = () => {
      endStartUp();
      startGit();
      // Loading the SDK blocks the thread for tens of milliseconds: only once the frame is written.
      if (mcp) setTimeout(() => void mcp.start(), MCP_AFTER_FRAME_MS);
      refreshLists();
    };
    return runInteractive({ runtime, selection, resumePath, initialPrompt: messages.join(" ") || undefined, approvals: approvals!, questions: questions!, startMode: (host) => startMode(host, flags), onFirstFrame, trustNotice: trustNotices(cwd), warnings });
  }
  const stdin = await readPipedStdin();
  const say = onceOnStderr();
  const prompt = buildPrompt(messages, stdin, cwd, runtime.extensions, say);
  if (prompt.length === 0) {
    throw new OmpError('no prompt: give one as arguments (omp -p "fix the failing test"), with @file, or on stdin', { exitCode: EXIT_USAGE });
  }

  const agent = await runtime.createAgent(selection, resumePath);
  for (const warning of agent.warnings) process.stderr.write(`omp: ${warning}\n`);
  sayUntrusted(cwd);
  const host = startMode(new SessionHost(runtime, agent, selection), flags);
  const stopTimer = limitTime(host, flags.maxTime);
  try {
    if (mode === "json") {
      const { runJsonMode } = await import("../modes/json.ts");
      const header = agent.writer?.header ?? { type: "session", version: 3, id: "none", timestamp: new Date().toISOString(), cwd };
      return await runJsonMode(host, prompt, { ...header, model: `${selection.model.provider}/${selection.model.id}`, sessionFile: agent.writer?.path ?? null }, say);
    }
    const { runPrintMode } = await import("../modes/print.ts");
    return await runPrintMode(host, prompt, say);
  } finally {
    stopTimer();
    await host.close();
  }
}


/**
 * The one line on stderr saying what an untrusted folder was not allowed to do (the interactive
 * mode shows it in its UI instead). Said once the agent exists, so that what other loaders
 * (hooks, extensions, MCP servers) skipped is on the same line.
 */
function sayUntrusted(cwd: string): void {
  const notice = trustNotices(cwd);
  if (notice) writeFdQuietly(2, `${notice}\n`);
}

/** What an untrusted folder was not allowed, and what a trusted one's changed files were not allowed: a line each. */
function trustNotices(cwd: string): string | undefined {
  const lines = [untrustedNotice(cwd), changedNotice(cwd)].filter((line) => line !== undefined);
  return lines.length > 0 ? lines.join("\n") : undefined;
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

function limitTime(host: SessionHost, seconds: number | undefined): () => void {
  if (seconds === undefined) return () => {};
  const timer = setTimeout(() => void host.stop("max_time", `stopped after ${seconds} s (--max-time)`), seconds * 1000);
  return () => clearTimeout(timer);
}
