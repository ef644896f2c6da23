import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RpcCommand } from "../../../core/rpc/protocol.ts";
import { resolveSession } from "../../../core/session/listing.ts";
import { toHtml } from "../../interactive/render/export.ts";
import type { RpcContext, RpcHandlers } from "./context.ts";

/** A new session, or another one resumed (its path, id or id prefix). */
async function switchSession(rpc: RpcContext, command: Extract<RpcCommand, { type: "new_session" | "switch_session" }>): Promise<void> {
  const { id } = command;
  const { runtime } = rpc.host;
  const path = command.type === "switch_session" ? resolveSession(command.sessionPath, runtime.options.cwd, runtime.sessionDirOptions()) : undefined;
  const { agent: next, warning } = await rpc.host.switchSession(path);
  return rpc.respond(command.type, id, {
    sessionFile: next.writer?.path,
    messageCount: next.messages.length,
    model: { provider: next.model.provider, id: next.model.id },
    thinkingLevel: next.thinking,
    warnings: [...(warning ? [warning] : []), ...next.warnings],
  });
}

/** Commands about the session: switching, reading its state and messages, naming, exporting, branching, compacting. */
export const SESSION_COMMANDS = {
  new_session: switchSession,
  switch_session: switchSession,
  async get_state(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    return rpc.respond("get_state", id, {
      model: { provider: agent.model.provider, id: agent.model.id },
      thinkingLevel: agent.thinking,
      isStreaming: agent.isRunning,
      steeringMode: agent.steeringMode,
      followUpMode: agent.followUpMode,
      sessionFile: agent.writer?.path,
      sessionId: agent.writer?.header.id,
      autoCompactionEnabled: agent.autoCompaction,
      messageCount: agent.messages.length,
      queuedMessageCount: rpc.host.queuedCount,
      warnings: agent.warnings,
      mode: rpc.host.mode,
      contextUsage: { tokens: agent.contextTokens(), contextWindow: agent.model.contextWindow, percent: (100 * agent.contextTokens()) / agent.model.contextWindow },
    });
  },
  async get_messages(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    return rpc.respond("get_messages", id, { messages: agent.messages });
  },
  async get_last_assistant_text(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    const last = [...agent.messages].reverse().find((m) => m.role === "assistant");
    const text = last && last.role === "assistant" ? last.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : null;
    return rpc.respond("get_last_assistant_text", id, { text });
  },
  async set_steering_mode(rpc, command) {
    rpc.host.setQueueModes({ steering: command.mode });
    rpc.respond(command.type, command.id);
  },
  async set_follow_up_mode(rpc, command) {
    rpc.host.setQueueModes({ followUp: command.mode });
    rpc.respond(command.type, command.id);
  },
  async compact(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    if (agent.isRunning) throw new Error("abort the running turn first");
    if (rpc.compacting) throw new Error("a compaction is already running");
    rpc.compacting = true;
    // A model call: answered when it ends, while get_state, abort and the rest keep working.
    void rpc.later("compact", id, async () => {
      try {
        const compacted = await rpc.host.submit({ type: "compact", ...(command.customInstructions ? { instructions: command.customInstructions } : {}) });
        return { compacted, tokens: agent.contextTokens() };
      } finally {
        rpc.compacting = false;
      }
    });
  },
  async set_auto_compaction(rpc, command) {
    rpc.host.setAutoCompaction(command.enabled);
    rpc.respond(command.type, command.id);
  },
  async get_session_stats(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    const count = (role: string) => agent.messages.filter((m) => m.role === role).length;
    return rpc.respond("get_session_stats", id, {
      sessionFile: agent.writer?.path,
      sessionId: agent.writer?.header.id,
      userMessages: count("user"),
      assistantMessages: count("assistant"),
      toolResults: count("toolResult"),
      totalMessages: agent.messages.length,
      tokens: { input: agent.usage.input, output: agent.usage.output, cacheRead: agent.usage.cacheRead, cacheWrite: agent.usage.cacheWrite, total: agent.usage.totalTokens },
      cost: agent.usage.cost.total,
    });
  },
  async set_session_name(rpc, command) {
    const { id } = command;
    rpc.host.sessionControl.setSessionName(command.name);
    return rpc.respond("set_session_name", id);
  },
  async export_html(rpc, command) {
    const { id } = command;
    const agent = rpc.host.view;
    const messages = await rpc.host.sessionControl.conversation();
    const sessionId = agent.writer?.header.id ?? "unsaved";
    const path = resolve(rpc.host.runtime.options.cwd, command.outputPath ?? `omp-session-${sessionId.slice(0, 8)}.html`);
    writeFileSync(path, toHtml(messages, { sessionId, model: `${agent.model.provider}/${agent.model.id}`, cwd: rpc.host.runtime.options.cwd, date: new Date() }));
    return rpc.respond("export_html", id, { path, messageCount: messages.length });
  },
  async branch(rpc, command) {
    const { id } = command;
    const { agent: next, text } = await rpc.host.branch(command.entryId);
    return rpc.respond("branch", id, { text, cancelled: false, messageCount: next.messages.length, sessionFile: next.writer?.path });
  },
} satisfies RpcHandlers;
