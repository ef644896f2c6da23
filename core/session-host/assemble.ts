import { resolve } from "node:path";
import { type ModelSelection, Runtime } from "../agent/runtime.ts";
import { type AgentConfig, type ChangesAsker, type TrustAsker, loadAgentConfig } from "./agent-config.ts";
import type { Settings, SettingsInput } from "../config/settings-schema.ts";
import { type SettingsLayer, loadSettings } from "../config/settings.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import { OmpError } from "../errors/omp-error.ts";
import { Extensions } from "../extensions/extensions.ts";
import { sessionExtensions, subagentDefinitions } from "../extensions/session.ts";
import { createTaskTool } from "../extensions/agents/task-tool.ts";
import { configuredMcp } from "../mcp/configured.ts";
import { mcpLimits } from "../mcp/limits.ts";
import type { PluginServers } from "../plugins/wiring.ts";
import type { LazyMcpSource } from "../mcp/lazy-source.ts";
import { expandHome } from "../paths.ts";
import type { ApprovalMode, Approver } from "../tools/approval.ts";
import { isDirectory } from "../tools/paths.ts";
import { type ToolSelection, builtinTools, selectTools } from "../tools/registry.ts";
import { searchChoice } from "../web/search/configured.ts";
import { memoryEnabled } from "../memory/banks.ts";
import { findChromium } from "../tools/browser/chromium.ts";
import { stopBrowser } from "../tools/browser/lifetime.ts";
import { loadSshHosts } from "../ssh/hosts.ts";
import { githubSetUp } from "../github/set-up.ts";
import { sandboxStartup } from "../sandbox/startup.ts";
import { sessionPolicy } from "../sandbox/session-policy.ts";
import { secretValuesIn } from "../sandbox/env.ts";
import { hideSecretsFromProcEnviron } from "../sandbox/hide-environ.ts";
import type { EditorBridge, Questioner } from "../tools/types.ts";
import type { ThinkingLevel } from "../ai/model.ts";
import { usageRecorder } from "../usage/record.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/**
 * What a session is built from: the command line's flags for print, json, rpc and the
 * interactive mode, or an editor's session/new for ACP. Everything optional has the command
 * line's default.
 */
export interface SessionSpec {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--config` overlays and the flags that become settings (model, thinking, approval mode). */
  overlays?: string[];
  runtimeSettings?: SettingsInput;
  trustFlag?: boolean;
  /** Someone to ask whether to trust the folder (the interactive mode); others skip and say so. */
  askTrust?: TrustAsker;
  /** Someone to ask about a trusted folder's changed files, before they load (the interactive mode). */
  askChanges?: ChangesAsker;
  /** Problems with hooks, extensions and MCP servers, one line each. */
  warn: (line: string) => void;
  toolSelection?: ToolSelection;
  extensionPaths?: string[];
  mcpConfigFiles?: string[];
  /** MCP servers from elsewhere (an ACP client's session/new), merged with the configured ones. */
  extraMcpServers?: PluginServers[];
  /** The interactive mode starts MCP servers after its first frame, and does not wait for them. */
  deferMcp?: boolean;
  /** Who answers approvals; none: calls that need one are refused with a message saying how to allow them. */
  approver?: Approver;
  /** The approval mode when no setting or flag names one (ACP: write, so the editor is asked, as every peer's adapter does). */
  defaultApprovalMode?: ApprovalMode;
  /** Who answers the ask tool's questions; none (print, json): the tool is not offered. */
  questioner?: Questioner;
  /** The editor's files and terminals, when an ACP client offers them. */
  editor?: EditorBridge;
  liveCredentials?: boolean;
  apiKey?: string;
  noSession?: boolean;
  sessionDir?: string;
  addDirs?: string[];
  /** `--allow-host`. */
  allowHosts?: string[];
  maxTurns?: number;
  systemPrompt?: { replace?: string; append?: string };
  git?: Promise<string>;
  thinking?: ThinkingLevel;
  /** `--models`: the models Ctrl+P cycles through. */
  cycleModels?: string[];
}

export interface AssembledSession {
  runtime: Runtime;
  settings: Settings;
  modelsConfig: ModelsConfig;
  layers: AgentConfig["layers"];
  mcp: LazyMcpSource | undefined;
  /** Closes what the session holds open (MCP servers, the broker's stream); call once at the end. */
  close(): Promise<void>;
}

/**
 * Builds a session's runtime from settings, in the order every front end relies on: config and
 * folder trust, then tools (built-ins, extensions' tools, the task tool; the skill tool joins
 * in the runtime), then MCP servers, whose prompts join the slash commands, then the runtime
 * with its approver. New tool sources and per-session resources hook in here, once for every mode.
 */
let swept = false;

export async function assembleSession(spec: SessionSpec): Promise<AssembledSession> {
  const { cwd, env, warn } = spec;
  // Commands a killed omp left running end now (core/shell/containment.ts), once per process, off the start-up path.
  if (!swept) {
    swept = true;
    // A sandboxed command could read omp's own environment through /proc/<pid>/environ: its secret values are blanked there.
    hideSecretsFromProcEnviron();
    setTimeout(() => void import("../shell/containment.ts").then((module) => module.sweepOrphans()), 0);
  }
  const { settings, modelsConfig, layers, trust } = await loadAgentConfig({
    cwd,
    env,
    overlays: spec.overlays,
    runtime: spec.runtimeSettings ?? {},
    trustFlag: spec.trustFlag,
    ask: spec.askTrust,
    askChanges: spec.askChanges,
  });
  defaultMode(settings, layers, spec.defaultApprovalMode);
  // Without a sandbox on this machine, commands ask first unless the user chose an approval mode.
  const sandboxNotice = sandboxStartup(settings, layers);
  if (sandboxNotice) warn(sandboxNotice);
  const toolSelection = spec.toolSelection ?? {};
  // The skill tool is not a built-in: `--tools read,skill` names it, and only then does a tool list include it.
  const skillTool = skillToolWanted(toolSelection, settings.tools.disabled);
  // web_search is offered only when a search provider is configured: no dead tool in the request.
  if (settings.memory.backend === "hindsight") warn("memory.backend hindsight needs a Hindsight server, which omp does not talk to: memory is off (memory.backend: local keeps it on this machine)");
  const ssh = loadSshHosts(cwd, env, trust.trusted);
  for (const problem of ssh.problems) warn(`ssh: ${problem}`);
  // browser is offered only where Chromium is installed.
  const builtins = builtinTools({ webSearch: searchChoice(settings.web.search, env) !== undefined, memory: memoryEnabled(settings), browser: findChromium(env) !== undefined, sshHosts: ssh.hosts, github: githubSetUp(env) });
  const registry = new Extensions({ cwd, env });
  const extensions = await sessionExtensions({
    cwd,
    env,
    layers,
    approvalMode: settings.approvalMode,
    extensionPaths: spec.extensionPaths ?? [],
    reservedToolNames: [...builtins.map((tool) => tool.name), "task"],
    warn,
    registry,
  });
  const tools = selectTools(
    // `job` drives bash's background jobs: without bash it has nothing to drive.
    [...builtins, ...extensions.tools, createTaskTool(subagentDefinitions(cwd, env, warn))].filter(
      (tool) => !settings.tools.disabled.includes(tool.name) && !(tool.name === "job" && settings.tools.disabled.includes("bash")) && (tool.name !== "ask" || spec.questioner !== undefined),
    ),
    withoutSkill(toolSelection),
  );
  const closers: (() => Promise<void> | void)[] = [];
  const sessionAddDirs = [...addDirs(spec.addDirs, cwd), ...extensions.additionalDirectories];
  const policy = sessionPolicy(settings.sandbox, cwd, sessionAddDirs, env);
  // A server may start before the runtime exists (headless runs start them at once); the values omp knows are read at spawn.
  let runtime: Runtime | undefined;
  const mcp = configuredMcp({
    cwd,
    env,
    flagFiles: spec.mcpConfigFiles,
    extraServers: spec.extraMcpServers,
    waitForUncached: !spec.deferMcp,
    deferStart: spec.deferMcp,
    warn,
    limits: mcpLimits(settings.mcp),
    ...(policy ? { sandbox: { policy, secrets: () => runtime?.secrets(spec.apiKey) ?? secretValuesIn(env) } } : {}),
  });
  if (mcp) {
    closers.push(() => mcp.close());
    // Server prompts are slash commands of the one registry, beside the markdown ones.
    registry.addProvider(mcp.prompts);
  }
  runtime = new Runtime({
    cwd,
    env,
    settings,
    modelsConfig,
    tools,
    registry,
    ...(mcp ? { toolSource: mcp } : {}),
    cliKey: spec.apiKey,
    noSession: spec.noSession ?? false,
    sessionDir: spec.sessionDir,
    // --add-dir, and the additionalDirectories of Claude Code's settings files.
    addDirs: sessionAddDirs,
    ...(spec.allowHosts ? { allowHosts: spec.allowHosts } : {}),
    maxTurns: spec.maxTurns,
    systemPrompt: spec.systemPrompt ?? {},
    git: spec.git,
    ...(spec.thinking ? { thinking: spec.thinking } : {}),
    skillTool,
    extensions: extensions.factory,
    liveCredentials: spec.liveCredentials,
    ...(spec.approver ? { approver: spec.approver } : {}),
    ...(spec.questioner ? { questioner: spec.questioner } : {}),
    ...(spec.editor ? { editor: spec.editor } : {}),
    ...(spec.cycleModels ? { cycleModels: spec.cycleModels } : {}),
    ...(spec.noSession ? {} : { recordUsage: usageRecorder(env) }),
    loadSettings: () => {
      const loaded = loadSettings({ cwd, env, overlays: spec.overlays, runtime: spec.runtimeSettings ?? {}, trusted: trust.trusted });
      defaultMode(loaded.settings, loaded.layers, spec.defaultApprovalMode);
      sandboxStartup(loaded.settings, loaded.layers);
      return loaded;
    },
  });
  // The browser tool's Chromium ends with the session.
  closers.push(stopBrowser);
  // The broker's stream would keep the process alive after the session ends.
  closers.push(() => runtime.closeCredentials());
  return {
    runtime,
    settings,
    modelsConfig,
    layers,
    mcp,
    close: async () => void (await Promise.all(closers.map((close) => close()))),
  };
}

/** The front end's own default approval mode, where no layer (file, profile, flag) chose one. */
function defaultMode(settings: Settings, layers: readonly SettingsLayer[], mode: ApprovalMode | undefined): void {
  if (mode && !layers.some((layer) => "approvalMode" in layer.values)) settings.approvalMode = mode;
}

/**
 * The model of a session: `pattern` when given (a resumed session records the switch), else a
 * resumed session's own model and thinking level, else the setting or the default.
 */
export async function chooseModel(runtime: Runtime, pattern: string | undefined, resumePath: string | undefined, warn: (line: string) => void): Promise<ModelSelection> {
  if (resumePath && !pattern) {
    const restored = await runtime.sessionSelection(resumePath, true);
    if (restored.warning) warn(restored.warning);
    if (restored.selection) return restored.selection;
  }
  return runtime.selectModel(pattern ?? runtime.options.settings.model);
}

/** `--add-dir` values as absolute paths (`~` expanded, relative to the working directory); each must be a directory. */
function addDirs(dirs: string[] | undefined, cwd: string): string[] {
  return (dirs ?? []).map((dir) => {
    const path = resolve(cwd, expandHome(dir));
    if (!isDirectory(path)) throw new OmpError(`--add-dir: ${dir} is not a directory`, { exitCode: EXIT_USAGE });
    return path;
  });
}

function skillToolWanted(selection: ToolSelection, disabled: readonly string[]): boolean {
  if (selection.none || disabled.includes("skill")) return false;
  if (!selection.only) return true;
  return selection.only.flatMap((entry) => entry.split(",")).some((name) => name.trim() === "skill");
}

function withoutSkill(selection: ToolSelection): ToolSelection {
  if (!selection.only) return selection;
  const only = selection.only.flatMap((entry) => entry.split(",")).map((name) => name.trim()).filter((name) => name !== "skill");
  // `--tools skill` alone: no built-in tool, the skill tool only.
  return only.length > 0 ? { ...selection, only } : { none: true };
}
