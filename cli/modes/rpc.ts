import { z } from "zod";
import type { Agent } from "../../core/agent/agent.ts";
import type { Runtime } from "../../core/agent/runtime.ts";
import type { SessionControl } from "../../core/agent/session-control.ts";
import { type HostEvent, type SessionHost, isAgentEvent } from "../../core/session-host/host.ts";
import type { ImageContent, TextContent } from "../../core/ai/messages.ts";
import { describeError } from "../../core/errors/omp-error.ts";
import { RpcCommand, type RpcResponse, RpcUiResponse } from "../../core/rpc/protocol.ts";
import { resolveSession } from "../../core/session/listing.ts";
import { bashTool } from "../../core/tools/bash.ts";
import { availableCommands } from "../../core/extensions/listing.ts";
import { stdout, writeLine } from "./output.ts";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { toHtml } from "../interactive/export.ts";

type Out = (frame: unknown) => void;

/**
 * `--mode rpc`: commands on stdin, responses and agent events on stdout, one JSON object per line.
 * A malformed line gets an error response and the process carries on. Approvals go to the host as
 * `extension_ui_request` frames, answered by `extension_ui_response` lines. stdin closing ends the
 * process once the running prompt has finished (questions asked after that are cancelled).
 */
export async function runRpcMode(host: SessionHost): Promise<number> {
  const write: Out = writeLine;
  const initial = host.agent;
  const session = new RpcSession(host, write);
  write({ type: "ready", ...(initial.warnings.length > 0 ? { warnings: initial.warnings } : {}) });
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Bun.stdin.stream()) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) await session.handle(line);
      newline = buffer.indexOf("\n");
    }
  }
  if (buffer.trim()) await session.handle(buffer.trim());
  await session.close();
  await stdout.flush();
  return 0;
}

class RpcSession {
  private readonly runtime: Runtime;
  private readonly control: SessionControl;
  private bash: { controller: AbortController; run: Promise<void> } | undefined;
  /** Commands answered when their work ends (model listing, compaction); the loop reads on meanwhile. */
  private readonly background = new Set<Promise<void>>();
  private compacting = false;
  private uiSerial = 0;
  /** Questions sent to the host, by request id, waiting for its extension_ui_response. */
  private readonly questions = new Map<string, (answer: RpcUiResponse | undefined) => void>();
  private closing = false;

  constructor(
    private readonly host: SessionHost,
    private readonly write: Out,
  ) {
    this.runtime = host.runtime;
    this.control = host.sessionControl;
    // rpc's protocol is the agent's events as they are; approvals become extension_ui_requests.
    host.subscribe((event) => {
      if (isAgentEvent(event)) write(event);
      else if (event.type === "approval_request") this.ask(event);
    });
  }

  private get agent(): Agent {
    return this.control.agent;
  }

  /** stdin closed: the running prompt and bash command finish (nobody is left to answer questions), then the session is closed. */
  async close(): Promise<void> {
    this.closing = true;
    for (const answer of this.questions.values()) answer(undefined);
    this.questions.clear();
    await Promise.all([this.agent.idle(), this.bash?.run, ...this.background]);
    await this.agent.end("other");
    this.agent.writer?.close();
  }

  /** An approval, asked of the host in the original's extension UI protocol. */
  private ask(request: Extract<HostEvent, { type: "approval_request" }>): void {
    const decide = (decision: { allow: boolean; remember?: boolean; reason?: string }) => void this.host.submit({ type: "answer_approval", id: request.id, ...decision });
    if (this.closing) return decide({ allow: false, reason: "the host that could approve it has gone (stdin closed)" });
    const id = `ui_${++this.uiSerial}`;
    const always = `Always allow ${request.rememberAs ?? request.toolName}`;
    this.write({
      type: "extension_ui_request",
      id,
      method: "select",
      title: request.kind === "sandbox" ? "Run outside the sandbox?" : `Allow ${request.toolName}?`,
      message: request.summary,
      options: ["Allow", always, "Deny"],
      toolName: request.toolName,
      effect: request.effect,
      input: request.input,
      ...(request.kind === "sandbox" ? { kind: "sandbox" } : {}),
    });
    this.questions.set(id, (answer) => {
      if (!answer || answer.cancelled) return decide({ allow: false, reason: answer?.timedOut ? "the host did not answer in time" : "the host cancelled the approval" });
      if (answer.confirmed !== undefined) return decide({ allow: answer.confirmed, ...(answer.confirmed ? {} : { reason: "the user denied it" }) });
      if (answer.value === "Allow") return decide({ allow: true });
      if (answer.value === always) return decide({ allow: true, remember: true });
      decide({ allow: false, reason: answer.value && answer.value !== "Deny" ? answer.value : "the user denied it" });
    });
  }

  private respond(command: string, id: string | undefined, data?: unknown): void {
    const frame: RpcResponse = { ...(id === undefined ? {} : { id }), type: "response", command, success: true, ...(data === undefined ? {} : { data }) };
    this.write(frame);
  }

  private fail(command: string, id: string | undefined, error: string): void {
    const frame: RpcResponse = { ...(id === undefined ? {} : { id }), type: "response", command, success: false, error };
    this.write(frame);
  }

  async handle(line: string): Promise<void> {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      this.fail("parse", undefined, `not JSON: ${describeError(error)}`);
      return;
    }
    if ((raw as { type?: unknown } | null)?.type === "extension_ui_response") {
      const answer = RpcUiResponse.safeParse(raw);
      if (!answer.success) return this.fail("extension_ui_response", undefined, `invalid extension_ui_response: ${z.prettifyError(answer.error)}`);
      this.questions.get(answer.data.id)?.(answer.data);
      this.questions.delete(answer.data.id);
      return;
    }
    const parsed = RpcCommand.safeParse(raw);
    if (!parsed.success) {
      const type = (raw as { type?: unknown } | null)?.type;
      const id = (raw as { id?: unknown } | null)?.id;
      const known = RpcCommand.options.map((option) => option.shape.type.value);
      const error =
        typeof type !== "string"
          ? `a command is a JSON object with a string "type", one of: ${known.join(", ")}`
          : !known.includes(type as RpcCommand["type"])
            ? `unknown command ${JSON.stringify(type)}; known commands: ${known.join(", ")}`
            : `invalid ${type} command: ${z.prettifyError(parsed.error)}`;
      this.fail(typeof type === "string" ? type : "parse", typeof id === "string" ? id : undefined, error);
      return;
    }
    const command = parsed.data;
    try {
      await this.dispatch(command);
    } catch (error) {
      this.fail(command.type, command.id, describeError(error));
    }
  }

  /** Answers `command` when `work` ends, without holding up the commands that follow it. */
  private later(command: string, id: string | undefined, work: () => Promise<unknown>): void {
    const done = work().then(
      (data) => this.respond(command, id, data),
      (error) => this.fail(command, id, describeError(error)),
    );
    const tracked = done.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  private content(message: string, images?: ImageContent[]): string | (TextContent | ImageContent)[] {
    return images && images.length > 0 ? [{ type: "text", text: message }, ...images] : message;
  }

  /**
   * Answers the command, then starts the run, so the response precedes the run's events; a run
   * that fails to start is reported later under the same id.
   */
  private startPrompt(command: string, id: string | undefined, content: string | (TextContent | ImageContent)[], data?: unknown, after?: () => void): void {
    this.respond(command, id, data);
    this.agent
      .prompt(content)
      .catch((error) => this.fail(command, id, describeError(error)))
      .finally(() => after?.());
  }

  /** A prompt that is `/command args` or `/skill:name args`, expanded; undefined for any other text. */
  private async invocation(message: string) {
    if (!message.startsWith("/")) return undefined;
    const { prepareInvocation } = await import("../../core/extensions/invoke.ts");
    // A command's model applies to a run it starts, not to one already going.
    return prepareInvocation(this.runtime, this.agent, message, { switchModel: !this.agent.isRunning });
  }

  private async dispatch(command: RpcCommand): Promise<void> {
    const { id } = command;
    const agent = this.agent;
    const startsRun = ["prompt", "steer", "follow_up", "abort_and_prompt", "new_session", "switch_session"].includes(command.type);
    if (this.compacting && startsRun) throw new Error("the conversation is being compacted: wait for the compact response, or send abort");
    switch (command.type) {
      case "prompt": {
        const invocation = await this.invocation(command.message);
        // An extension's command that did its work itself: nothing goes to the model.
        if (invocation && invocation.content.length === 0) {
          invocation.restore();
          return this.respond("prompt", id, { agentInvoked: false, invoked: { kind: invocation.kind, name: invocation.name, path: invocation.path }, warnings: invocation.warnings });
        }
        const content = invocation ? [...invocation.content, ...(command.images ?? [])] : this.content(command.message, command.images);
        if (agent.isRunning) {
          if (!command.streamingBehavior) throw new Error('the agent is working: send streamingBehavior "steer" or "followUp", or use steer / follow_up');
          if (command.streamingBehavior === "steer") agent.steer(content);
          else agent.followUp(content);
          return this.respond("prompt", id, { agentInvoked: false, queued: command.streamingBehavior });
        }
        if (!invocation) return this.startPrompt("prompt", id, content, { agentInvoked: true });
        const { kind, name, path, warnings } = invocation;
        return this.startPrompt("prompt", id, content, { agentInvoked: true, invoked: { kind, name, path }, warnings }, invocation.restore);
      }
      case "get_available_commands": {
        // MCP servers' prompts are known once their servers answered: the list waits for them (each within its start timeout).
        const extensions = this.runtime.extensions;
        return this.later("get_available_commands", id, () => extensions.settleProviders().then(() => ({ commands: availableCommands(extensions) })));
      }
      case "steer":
      case "follow_up": {
        const content = this.content(command.message, command.images);
        if (!agent.isRunning) return this.startPrompt(command.type, id, content, { agentInvoked: true });
        if (command.type === "steer") agent.steer(content);
        else agent.followUp(content);
        return this.respond(command.type, id);
      }
      case "abort":
        agent.abort();
        await agent.idle();
        return this.respond("abort", id);
      case "abort_and_prompt":
        agent.abort();
        await agent.idle();
        return this.startPrompt("abort_and_prompt", id, this.content(command.message, command.images));
      case "new_session":
      case "switch_session": {
        const path = command.type === "switch_session" ? resolveSession(command.sessionPath, this.runtime.options.cwd, this.runtime.sessionDirOptions()) : undefined;
        const { agent: next, warning } = await this.host.switchSession(path);
        return this.respond(command.type, id, {
          sessionFile: next.writer?.path,
          messageCount: next.messages.length,
          model: { provider: next.model.provider, id: next.model.id },
          thinkingLevel: next.thinking,
          warnings: [...(warning ? [warning] : []), ...next.warnings],
        });
      }
      case "get_state":
        return this.respond("get_state", id, {
          model: { provider: agent.model.provider, id: agent.model.id },
          thinkingLevel: agent.thinking,
          isStreaming: agent.isRunning,
          steeringMode: agent.steeringMode,
          followUpMode: agent.followUpMode,
          sessionFile: agent.writer?.path,
          sessionId: agent.writer?.header.id,
          autoCompactionEnabled: agent.autoCompaction,
          messageCount: agent.messages.length,
          queuedMessageCount: agent.queuedCount,
          warnings: agent.warnings,
          contextUsage: { tokens: agent.contextTokens(), contextWindow: agent.model.contextWindow, percent: (100 * agent.contextTokens()) / agent.model.contextWindow },
        });
      case "get_messages":
        return this.respond("get_messages", id, { messages: agent.messages });
      case "get_last_assistant_text": {
        const last = [...agent.messages].reverse().find((m) => m.role === "assistant");
        const text = last && last.role === "assistant" ? last.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : null;
        return this.respond("get_last_assistant_text", id, { text });
      }
      case "set_model": {
        const selection = await this.runtime.selectModel(`${command.provider}/${command.modelId}`, false);
        if (selection.model.provider !== command.provider || selection.model.id !== command.modelId) {
          throw new Error(`no model ${command.provider}/${command.modelId}; see get_available_models`);
        }
        this.control.setModel(selection);
        return this.respond("set_model", id, { provider: selection.model.provider, id: selection.model.id, thinkingLevel: this.agent.thinking });
      }
      case "get_available_models":
        // Probing local servers can take a moment; prompts and aborts are not held up by it.
        return this.later("get_available_models", id, async () => ({
          models: (await this.runtime.availableModels()).map((m) => ({ provider: m.provider, id: m.id, name: m.name, api: m.api, contextWindow: m.contextWindow, reasoning: m.reasoning, cost: m.cost })),
        }));
      case "set_thinking_level":
        if (!this.control.setThinking(command.level)) throw new Error(`${agent.model.provider}/${agent.model.id} has no thinking levels`);
        return this.respond("set_thinking_level", id);
      case "cycle_thinking_level": {
        const level = this.control.cycleThinking();
        return this.respond("cycle_thinking_level", id, level === undefined ? null : { level });
      }
      case "cycle_model": {
        const selection = await this.control.cycleModel();
        if (!selection) return this.respond("cycle_model", id, null);
        return this.respond("cycle_model", id, { model: { provider: selection.model.provider, id: selection.model.id }, thinkingLevel: this.agent.thinking, isScoped: false });
      }
      case "set_steering_mode":
        agent.steeringMode = command.mode;
        return this.respond(command.type, id);
      case "set_follow_up_mode":
        agent.followUpMode = command.mode;
        return this.respond(command.type, id);
      case "compact": {
        if (agent.isRunning) throw new Error("abort the running turn first");
        if (this.compacting) throw new Error("a compaction is already running");
        this.compacting = true;
        // A model call: answered when it ends, while get_state, abort and the rest keep working.
        return this.later("compact", id, async () => {
          try {
            const compacted = await agent.compact("manual", command.customInstructions);
            return { compacted, tokens: agent.contextTokens() };
          } finally {
            this.compacting = false;
          }
        });
      }
      case "set_auto_compaction":
        agent.autoCompaction = command.enabled;
        return this.respond(command.type, id);
      case "get_session_stats": {
        const count = (role: string) => agent.messages.filter((m) => m.role === role).length;
        return this.respond("get_session_stats", id, {
          sessionFile: agent.writer?.path,
          sessionId: agent.writer?.header.id,
          userMessages: count("user"),
          assistantMessages: count("assistant"),
          toolResults: count("toolResult"),
          totalMessages: agent.messages.length,
          tokens: { input: agent.usage.input, output: agent.usage.output, cacheRead: agent.usage.cacheRead, cacheWrite: agent.usage.cacheWrite, total: agent.usage.totalTokens },
          cost: agent.usage.cost.total,
        });
      }
      case "bash": {
        // Answered when the command ends; meanwhile other commands (abort_bash among them) are read and handled.
        if (this.bash) throw new Error("a bash command is already running; send abort_bash first");
        const controller = new AbortController();
        const run = bashTool
          .execute(
            { command: command.command },
            { cwd: this.runtime.options.cwd, signal: controller.signal, artifactsDir: agent.artifactsDir, redact: (text) => agent.redact(text), bashTimeoutSeconds: this.runtime.options.settings.bash.timeoutSeconds, jobScope: agent },
          )
          .then(
            (result) => {
              const output = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
              this.respond("bash", id, { output, isError: result.isError ?? false, details: result.details });
            },
            (error) => this.fail("bash", id, describeError(error)),
          )
          .finally(() => {
            this.bash = undefined;
          });
        this.bash = { controller, run };
        return;
      }
      case "set_session_name":
        this.control.setSessionName(command.name);
        return this.respond("set_session_name", id);
      case "export_html": {
        const messages = await this.control.conversation();
        const sessionId = agent.writer?.header.id ?? "unsaved";
        const path = resolve(this.runtime.options.cwd, command.outputPath ?? `omp-session-${sessionId.slice(0, 8)}.html`);
        writeFileSync(path, toHtml(messages, { sessionId, model: `${agent.model.provider}/${agent.model.id}`, cwd: this.runtime.options.cwd, date: new Date() }));
        return this.respond("export_html", id, { path, messageCount: messages.length });
      }
      case "branch": {
        const { agent: next, text } = await this.host.branch(command.entryId);
        return this.respond("branch", id, { text, cancelled: false, messageCount: next.messages.length, sessionFile: next.writer?.path });
      }
      case "get_jobs": {
        const { jobsFor } = await import("../../core/shell/jobs.ts");
        return this.respond("get_jobs", id, { jobs: jobsFor(agent).list().map((job) => job.info()) });
      }
      case "kill_job": {
        const { jobsFor } = await import("../../core/shell/jobs.ts");
        const jobs = jobsFor(agent);
        const job = jobs.get(command.jobId);
        const wasRunning = job.running;
        await jobs.kill(job.id);
        return this.respond("kill_job", id, { killed: wasRunning, job: job.info() });
      }
      case "abort_bash": {
        const running = this.bash;
        running?.controller.abort();
        await running?.run;
        return this.respond("abort_bash", id, { aborted: running !== undefined });
      }
    }
  }
}
