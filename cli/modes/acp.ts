import { selectProfile } from "../../core/config/profiles.ts";
import { changedParts } from "../../core/trust/content-pins.ts";
import { askTrustChanges } from "../../core/session-host/trust-changes.ts";
import * as acp from "@agentclientprotocol/sdk";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { attachFile } from "../../core/extensions/mentions.ts";
import { NoModelError } from "../../core/agent/runtime.ts";
import type { ImageContent, Message, TextContent } from "../../core/ai/messages.ts";
import { describeError } from "../../core/errors/omp-error.ts";
import { availableCommands } from "../../core/extensions/listing.ts";
import type { PluginServers } from "../../core/plugins/wiring.ts";
import { resolveSession } from "../../core/session/listing.ts";
import { type AssembledSession, assembleSession, chooseModel } from "../../core/session-host/assemble.ts";
import { ApprovalRequests, type HostEvent, QuestionRequests, SessionHost } from "../../core/session-host/host.ts";
import { SESSION_MODES, type SessionMode } from "../../core/session-host/protocol.ts";
import { withoutSystemNotes } from "../../core/session/modes.ts";
import { type ToolPresentation, presentTool } from "../../core/tools/presentation.ts";
import type { EditorBridge, EditorCommand, EditorCommandResult } from "../../core/tools/types.ts";
import { parseApprovalFlag } from "../../core/tools/approval.ts";
import { askInEditor } from "./acp-questions.ts";
import { startMode } from "../shared/start-mode.ts";
import { VERSION } from "../../core/version.ts";
import type { AgentFlags } from "../options/agent-options.ts";
import { approvalOptions, decideApproval } from "../../core/tools/approval-answer.ts";

const MODES: Record<SessionMode, { name: string; description: string }> = {
  default: { name: "Default", description: "Asks before the calls the approval mode setting names" },
  plan: { name: "Plan", description: "Reads and plans only: file changes and commands are refused" },
  "auto-accept": { name: "Auto-accept edits", description: "File changes in the project run without asking; commands still ask" },
};

/** ACP's names for the approval options (core/tools/approval-answer.ts decides what an answer means). */
const PERMISSION_OPTIONS = approvalOptions("Always allow").map((option) => ({ ...option, label: option.kind === "reject_once" ? "Reject" : option.label }));

/**
 * `omp acp` (and `--mode acp`): omp as an Agent Client Protocol agent on stdin/stdout, for Zed,
 * JetBrains, Neovim and every ACP client. Each ACP session is a session host of its own (its cwd,
 * its MCP servers); this file only translates: ACP requests into host operations, host events
 * into session/update notifications, approvals into session/request_permission, and lends the
 * tools the editor's files and terminals when it offers them.
 */
export async function runAcp(flags: AgentFlags): Promise<number> {
  // A bad flag is the user's mistake at the command line: said there (exit 2), not at each session/new.
  if (flags.approvalMode) parseApprovalFlag(flags.approvalMode);
  selectProfile(flags.profile);
  const app = acp.agent({ name: "omp" });
  const sessions = new Map<string, AcpSession>();
  let capabilities: acp.ClientCapabilities = {};
  const input = Bun.stdin.stream();
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => void process.stdout.write(chunk),
  });
  const session = (id: string) => {
    const found = sessions.get(id);
    if (!found) throw acp.RequestError.invalidParams({ sessionId: id }, `no session ${id} in this omp; start one with session/new or session/load`);
    return found;
  };

  app.onRequest(acp.methods.agent.initialize, ({ params }) => {
    capabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
      },
      authMethods: AUTH_METHODS,
      agentInfo: { name: "omp", title: "omp", version: VERSION },
    };
  });
  app.onRequest(acp.methods.agent.authenticate, () => {
    // omp reads its keys at each session/new: nothing to do here but say how to add one.
    return {};
  });
  const open = async (client: acp.AgentContext, params: acp.NewSessionRequest | acp.LoadSessionRequest, sessionId?: string) => {
    const opened = await AcpSession.open(client, capabilities, flags, params, sessionId);
    sessions.set(opened.id, opened);
    return opened;
  };
  app.onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
    const opened = await open(client, params);
    opened.announceCommands();
    // After the response, so the editor knows the session the permission request is about.
    setTimeout(() => opened.askTrustChanges(), 0);
    return { sessionId: opened.id, modes: opened.modeState(), configOptions: await opened.configOptions() };
  });
  app.onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    sessions.get(params.sessionId)?.close();
    const opened = await open(client, params, params.sessionId);
    await opened.replay();
    opened.announceCommands();
    return { modes: opened.modeState(), configOptions: await opened.configOptions() };
  });
  app.onRequest(acp.methods.agent.session.prompt, async ({ params }) => session(params.sessionId).prompt(params.prompt));
  app.onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
    await sessions.get(params.sessionId)?.cancel();
  });
  app.onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
    await session(params.sessionId).setMode(params.modeId);
    return {};
  });
  app.onRequest(acp.methods.agent.session.setConfigOption, async ({ params }) => {
    const target = session(params.sessionId);
    if (params.configId !== "model" || typeof params.value !== "string") throw acp.RequestError.invalidParams(params, `unknown config option ${params.configId}; omp offers "model"`);
    await target.setModel(params.value);
    return { configOptions: await target.configOptions() };
  });

  const connection = app.connect(acp.ndJsonStream(output, input));
  await connection.closed;
  await Promise.all([...sessions.values()].map((s) => s.close()));
  return 0;
}

const AUTH_METHODS: acp.AuthMethod[] = [
  {
    id: "omp-login",
    name: "Log in with omp",
    description: "Run `omp auth login` (subscriptions) or `omp auth add <provider>` (API keys) in a terminal, or set a provider's API key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...) for the editor; then start a new session.",
  },
];

/** An ACP client's MCP servers in omp's config shape (stdio, http and sse), merged after omp's own. */
function clientServers(servers: acp.McpServer[]): PluginServers[] {
  if (servers.length === 0) return [];
  const entries = servers.map((server) => {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      return [server.name, { type: server.type, url: server.url, headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) }] as const;
    }
    const stdio = server as acp.McpServerStdio;
    return [stdio.name, { command: stdio.command, args: stdio.args, env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])) }] as const;
  });
  return [{ source: "the ACP client", servers: Object.fromEntries(entries) }];
}

/** ACP prompt blocks as omp's content: resources inline as tagged text, file links attached as `@file` is. */
function promptContent(blocks: acp.ContentBlock[], cwd: string): (TextContent | ImageContent)[] {
  const content: (TextContent | ImageContent)[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image":
        content.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) content.push({ type: "text", text: `<context uri="${resource.uri}">\n${resource.text}\n</context>` });
        else content.push({ type: "text", text: `<context uri="${resource.uri}">(binary, ${resource.mimeType ?? "unknown type"}; not shown)</context>` });
        break;
      }
      case "resource_link":
        if (block.uri.startsWith("file://")) {
          try {
            content.push(attachFile(fileURLToPath(block.uri), cwd));
            break;
          } catch {
            // Unreadable: the link as text, which the model can try to read itself.
          }
        }
        content.push({ type: "text", text: `[${block.name}](${block.uri})` });
        break;
      default:
        break;
    }
  }
  return content;
}

function stopReason(reason: string | undefined): acp.StopReason {
  switch (reason) {
    case "aborted":
    case "max_time":
      return "cancelled";
    case "max_turns":
      return "max_turn_requests";
    case "length":
      return "max_tokens";
    // A denied call ends the turn normally: the editor's user speaks next.
    default:
      return "end_turn";
  }
}

/** What each open tool call has shown, so that its final update keeps its diff and terminal. */
interface ShownCall {
  presentation: ToolPresentation;
  terminalId?: string;
}

class AcpSession {
  private readonly calls = new Map<string, ShownCall>();
  private lastError: string | undefined;

  private constructor(
    readonly id: string,
    private readonly client: acp.AgentContext,
    private readonly assembled: AssembledSession,
    private readonly host: SessionHost,
    private readonly approvals: ApprovalRequests,
  ) {
    host.subscribe((event) => this.onEvent(event));
  }

  /** Files of a trusted folder changed since it was trusted were skipped: the editor is asked whether to trust them from now on. */
  askTrustChanges(): void {
    const cwd = this.host.runtime.options.cwd;
    const changes = changedParts(cwd);
    if (changes.length > 0) void askTrustChanges(this.approvals.ask, cwd, changes, process.env);
  }

  static async open(client: acp.AgentContext, capabilities: acp.ClientCapabilities, flags: AgentFlags, params: acp.NewSessionRequest | acp.LoadSessionRequest, loadId?: string): Promise<AcpSession> {
    const cwd = resolve(params.cwd);
    const approvals = new ApprovalRequests();
    const questions = new QuestionRequests();
    const ref: { id: string; calls?: Map<string, ShownCall>; update?: (update: acp.SessionUpdate) => void } = { id: loadId ?? "" };
    const editor = editorBridge(client, capabilities, ref);
    const assembled = await assembleSession({
      cwd,
      // A copy per session: one project's .env must not reach another's session in this process.
      env: { ...process.env },
      warn: (line) => process.stderr.write(`omp: ${line}\n`),
      extraMcpServers: clientServers(params.mcpServers ?? []),
      approver: approvals.ask,
      // The editor is asked before edits and commands unless the user chose a mode.
      defaultApprovalMode: "write",
      questioner: questions.ask,
      ...(editor ? { editor } : {}),
      liveCredentials: true,
      runtimeSettings: flags.approvalMode && parseApprovalFlag(flags.approvalMode).approvalMode ? { approvalMode: parseApprovalFlag(flags.approvalMode).approvalMode } : {},
      overlays: flags.config,
      trustFlag: flags.trust,
      apiKey: flags.apiKey,
      sessionDir: flags.sessionDir,
      addDirs: params.additionalDirectories ?? [],
    });
    try {
      const { runtime } = assembled;
      const resumePath = loadId ? resolveSession(loadId, cwd, runtime.sessionDirOptions()) : undefined;
      let selection;
      try {
        selection = await chooseModel(runtime, flags.model, resumePath, (line) => process.stderr.write(`omp: ${line}\n`));
      } catch (error) {
        if (error instanceof NoModelError) throw acp.RequestError.authRequired(undefined, (error as Error).message);
        throw error;
      }
      const agent = await runtime.createAgent(selection, resumePath);
      const host = startMode(new SessionHost(runtime, agent, selection, approvals, questions), flags);
      const id = loadId ?? agent.writer?.header.id ?? crypto.randomUUID();
      const session = new AcpSession(id, client, assembled, host, approvals);
      ref.id = id;
      ref.calls = session.calls;
      ref.update = (update) => session.update(update);
      return session;
    } catch (error) {
      await assembled.close();
      throw error;
    }
  }

  private update(update: acp.SessionUpdate): void {
    void this.client.notify(acp.methods.client.session.update, { sessionId: this.id, update }).catch(() => undefined);
  }

  modeState(): acp.SessionModeState {
    return { currentModeId: this.host.mode, availableModes: SESSION_MODES.map((id) => ({ id, ...MODES[id] })) };
  }

  async configOptions(): Promise<acp.SessionConfigOption[]> {
    const models = await this.host.runtime.cycleCandidates();
    const current = `${this.host.view.model.provider}/${this.host.view.model.id}`;
    const options = models.map((m) => ({ value: `${m.provider}/${m.id}`, name: m.name || `${m.provider}/${m.id}` }));
    if (!options.some((o) => o.value === current)) options.unshift({ value: current, name: this.host.view.model.name || current });
    return [{ id: "model", name: "Model", category: "model", type: "select", currentValue: current, options }];
  }

  /** omp's slash commands, skills and MCP prompts, once the MCP servers have answered. */
  announceCommands(): void {
    const extensions = this.host.runtime.extensions;
    void extensions.settleProviders().then(() => {
      const availableCommands = commandsOf(extensions);
      this.update({ sessionUpdate: "available_commands_update", availableCommands });
    });
  }

  /** session/load: the conversation so far, as the updates that made it. */
  async replay(): Promise<void> {
    for (const message of this.host.view.messages) {
      for (const update of replayUpdates(message, this.host.runtime.options.cwd)) {
        await this.client.notify(acp.methods.client.session.update, { sessionId: this.id, update });
      }
    }
  }

  async prompt(blocks: acp.ContentBlock[]): Promise<acp.PromptResponse> {
    const content = promptContent(blocks, this.host.runtime.options.cwd);
    this.lastError = undefined;
    const first = content[0];
    const compact = first?.type === "text" && content.length === 1 ? /^\/compact(?:\s+([\s\S]*))?$/.exec(first.text.trim()) : null;
    if (compact) return this.compact(compact[1]?.trim() || undefined);
    const reason = await this.host.submit({ type: "prompt", content });
    if (reason === "error" && this.lastError) throw acp.RequestError.internalError(undefined, this.lastError);
    return { stopReason: stopReason(reason) };
  }

  /** `/compact [what to keep]`: omp's own command, answered in the chat. */
  private async compact(instructions: string | undefined): Promise<acp.PromptResponse> {
    const before = this.host.view.contextTokens();
    try {
      await this.host.submit({ type: "compact", ...(instructions ? { instructions } : {}) });
    } catch (error) {
      throw acp.RequestError.internalError(undefined, `compaction failed: ${describeError(error)}`);
    }
    const after = this.host.view.contextTokens();
    const text = after < before ? `Compacted the conversation: about ${before} tokens of context are now ${after}.` : "Nothing to compact yet: the conversation is short enough.";
    this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    return { stopReason: "end_turn" };
  }

  async cancel(): Promise<void> {
    this.host.cancelRequests("the user cancelled the turn");
    await this.host.submit({ type: "abort" });
  }

  async setMode(mode: string): Promise<void> {
    if (!(SESSION_MODES as readonly string[]).includes(mode)) throw acp.RequestError.invalidParams({ modeId: mode }, `unknown mode ${mode}; omp has ${SESSION_MODES.join(", ")}`);
    await this.host.submit({ type: "set_mode", mode: mode as SessionMode });
  }

  async setModel(model: string): Promise<void> {
    await this.host.submit({ type: "set_model", model });
  }

  async close(): Promise<void> {
    await this.host.close();
    await this.assembled.close();
  }

  private onEvent(event: HostEvent): void {
    switch (event.type) {
      case "message_update": {
        const delta = event.assistantMessageEvent;
        if (delta.type === "text_delta") this.update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta.delta } });
        else if (delta.type === "thinking_delta") this.update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: delta.delta } });
        break;
      }
      case "tool_call": {
        const shown = { presentation: event.presentation };
        this.calls.set(event.toolCallId, shown);
        this.update({
          sessionUpdate: "tool_call",
          toolCallId: event.toolCallId,
          title: event.presentation.title,
          kind: event.presentation.kind,
          status: "pending",
          locations: event.presentation.locations,
          rawInput: event.input,
          content: toolContent(shown),
        });
        if (event.toolName === "todo") this.plan(event.input);
        if (event.toolName === "exit_plan_mode") this.plan({ todos: ((event.input as { steps?: unknown[] }).steps ?? []).map((content) => ({ content })) });
        break;
      }
      case "tool_execution_start":
        this.update({ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status: "in_progress" });
        break;
      case "message_end": {
        const message = event.message;
        if (message.role !== "toolResult") break;
        const shown = this.calls.get(message.toolCallId);
        this.calls.delete(message.toolCallId);
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
        this.update({
          sessionUpdate: "tool_call_update",
          toolCallId: message.toolCallId,
          status: message.isError ? "failed" : "completed",
          content: [...(shown ? toolContent(shown) : []), ...(shown?.terminalId || !text ? [] : [{ type: "content" as const, content: { type: "text" as const, text } }])],
          rawOutput: { content: text, ...(message.details === undefined ? {} : { details: message.details }) },
        });
        break;
      }
      case "approval_request":
        void this.askPermission(event);
        break;
      case "question_request":
        void askInEditor(this.client, this.id, this.host, event);
        break;
      case "mode_changed":
        this.update({ sessionUpdate: "current_mode_update", currentModeId: event.mode });
        break;
      case "model_changed":
        void this.configOptions().then((configOptions) => this.update({ sessionUpdate: "config_option_update", configOptions }));
        break;
      case "agent_end":
        if (event.error) this.lastError = event.error;
        break;
      case "usage":
        this.update({ sessionUpdate: "usage_update", used: event.contextTokens, size: event.contextWindow, cost: { amount: event.cost, currency: "USD" } });
        break;
    }
  }

  private plan(input: unknown): void {
    const todos = (input as { todos?: { content?: unknown; status?: unknown }[] } | null)?.todos;
    if (!Array.isArray(todos)) return;
    const entries = todos.map((todo): acp.PlanEntry => ({
      content: String(todo.content ?? ""),
      status: todo.status === "completed" || todo.status === "in_progress" ? todo.status : "pending",
      priority: "medium",
    }));
    this.update({ sessionUpdate: "plan", entries });
  }

  private async askPermission(request: Extract<HostEvent, { type: "approval_request" }>): Promise<void> {
    const answer = (allow: boolean, remember = false, reason?: string) =>
      this.host.submit({ type: "answer_approval", id: request.id, allow, ...(remember ? { remember } : {}), ...(reason ? { reason } : {}) }).catch(() => undefined);
    try {
      const toolCallId = request.toolCallId ?? request.id;
      const params: acp.RequestPermissionRequest = {
        sessionId: this.id,
        toolCall: {
          toolCallId,
          // A sandbox refusal asks to run it again outside: the editor shows why, not just the command.
          title: request.kind === "sandbox" ? `Run outside the sandbox? ${request.summary}` : request.presentation.title,
          kind: request.presentation.kind,
          rawInput: request.input,
          locations: request.presentation.locations,
          // The exact change, whole files before and after, for the editor's diff view.
          ...(request.changes ? { content: request.changes.map((change): acp.ToolCallContent => ({ type: "diff", path: change.path, oldText: change.oldText, newText: change.newText ?? "" })) } : {}),
        },
        options: PERMISSION_OPTIONS.map((option): acp.PermissionOption => ({ optionId: option.id, name: option.label, kind: option.kind })),
      };
      const response = await this.client.request(acp.methods.client.session.requestPermission, params);
      // Reject (or a cancelled prompt) is a plain no: it ends the turn, the model waits for the user, as in Claude Code.
      const decision = decideApproval(PERMISSION_OPTIONS, response.outcome.outcome === "selected" ? { picked: response.outcome.optionId } : { unanswered: "cancelled" });
      await answer(decision.allow, decision.remember ?? false, decision.reason);
    } catch (error) {
      await answer(false, false, `the editor could not ask: ${describeError(error)}`);
    }
  }
}

function toolContent(shown: ShownCall): acp.ToolCallContent[] {
  const content: acp.ToolCallContent[] = (shown.presentation.diffs ?? []).map((diff) => ({ type: "diff", path: diff.path, oldText: diff.oldText, newText: diff.newText }));
  if (shown.terminalId) content.push({ type: "terminal", terminalId: shown.terminalId });
  return content;
}

/** omp's own commands that make sense in an editor's chat (the others belong to the terminal, or the editor has them: model, mode). */
const BUILTIN_COMMANDS: acp.AvailableCommand[] = [
  { name: "compact", description: "Summarise older messages to free context", input: { hint: "what the summary must keep (optional)" } },
];

function commandsOf(extensions: SessionHost["runtime"]["extensions"]): acp.AvailableCommand[] {
  const own = availableCommands(extensions);
  return [...BUILTIN_COMMANDS.filter((builtin) => !own.some((command) => command.name === builtin.name)), ...own.map((command) => ({
    name: command.name,
    description: command.description || command.kind,
    ...("argumentHint" in command && command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
  }))];
}

/** One stored message as the updates a live session would have sent for it. */
function replayUpdates(message: Message, cwd: string): acp.SessionUpdate[] {
  const text = (content: string | (TextContent | ImageContent)[]) => (typeof content === "string" ? content : withoutSystemNotes(content).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n"));
  switch (message.role) {
    case "user":
      return [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: text(message.content) } }];
    case "assistant":
      return message.content.flatMap((part): acp.SessionUpdate[] => {
        if (part.type === "text") return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } }];
        if (part.type === "thinking") return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.thinking } }];
        const presentation = presentTool(part.name, part.arguments, cwd);
        return [{ sessionUpdate: "tool_call", toolCallId: part.id, title: presentation.title, kind: presentation.kind, status: "pending", locations: presentation.locations, rawInput: part.arguments, content: toolContent({ presentation }) }];
      });
    case "toolResult":
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: message.toolCallId,
          status: message.isError ? "failed" : "completed",
          content: [{ type: "content", content: { type: "text", text: text(message.content) } }],
        },
      ];
    default:
      return [];
  }
}

/**
 * The editor's buffers and terminal for the tools, as far as the client offered them at
 * initialize. A terminal shows in the tool call's content while the command runs.
 */
function editorBridge(client: acp.AgentContext, capabilities: acp.ClientCapabilities, session: { id: string; calls?: Map<string, ShownCall>; update?: (update: acp.SessionUpdate) => void }): EditorBridge | undefined {
  const bridge: EditorBridge = {};
  if (capabilities.fs?.readTextFile) {
    bridge.readTextFile = async (path) => (await client.request(acp.methods.client.fs.readTextFile, { sessionId: session.id, path })).content;
  }
  if (capabilities.fs?.writeTextFile) {
    bridge.writeTextFile = async (path, content) => {
      try {
        await client.request(acp.methods.client.fs.writeTextFile, { sessionId: session.id, path, content });
      } catch (error) {
        // acpx and others refuse a write the user denied with a bare "Internal error"; its details say why.
        throw new Error(`the editor refused to write it (${editorError(error)}): denied by the user or by the editor's permission settings`);
      }
    };
  }
  if (capabilities.terminal) bridge.runCommand = (command) => runInTerminal(client, session, command);
  return Object.keys(bridge).length > 0 ? bridge : undefined;
}

/** An ACP error's words: its message, and the details a client put in its data. */
function editorError(error: unknown): string {
  if (!(error instanceof acp.RequestError)) return describeError(error);
  const data = error.data as { details?: unknown; message?: unknown } | undefined;
  const details = typeof data?.details === "string" ? data.details : typeof data?.message === "string" ? data.message : undefined;
  return details ? `${error.message}: ${details}` : error.message;
}

async function runInTerminal(client: acp.AgentContext, session: { id: string; calls?: Map<string, ShownCall>; update?: (update: acp.SessionUpdate) => void }, command: EditorCommand): Promise<EditorCommandResult> {
  const terminal = await client.createTerminal({
    sessionId: session.id,
    command: "bash",
    args: ["-c", `exec 2>&1\n${command.command}`],
    cwd: command.cwd,
    env: Object.entries(command.env).map(([name, value]) => ({ name, value })),
    outputByteLimit: command.outputByteLimit,
  });
  try {
    const shown = command.toolCallId ? session.calls?.get(command.toolCallId) : undefined;
    if (shown && command.toolCallId) {
      shown.terminalId = terminal.id;
      session.update?.({ sessionUpdate: "tool_call_update", toolCallId: command.toolCallId, content: toolContent(shown) });
    }
    let stopped: "timeout" | "abort" | undefined;
    const stop = (why: "timeout" | "abort") => {
      stopped ??= why;
      void terminal.kill().catch(() => undefined);
    };
    const timer = setTimeout(() => stop("timeout"), command.timeoutMs);
    const onAbort = () => stop("abort");
    command.signal.addEventListener("abort", onAbort, { once: true });
    let exit: acp.WaitForTerminalExitResponse;
    try {
      exit = await terminal.waitForExit();
    } finally {
      clearTimeout(timer);
      command.signal.removeEventListener("abort", onAbort);
    }
    const output = await terminal.currentOutput();
    return { output: output.output, exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, truncated: output.truncated, timedOut: stopped === "timeout" };
  } finally {
    await terminal.release().catch(() => undefined);
  }
}
