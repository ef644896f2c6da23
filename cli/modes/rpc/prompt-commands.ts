import type { ImageContent, TextContent } from "../../../core/ai/messages.ts";
import { SessionError } from "../../../core/errors/session-error.ts";
import { availableCommands } from "../../../core/extensions/listing.ts";
import type { RpcCommand } from "../../../core/rpc/protocol.ts";
import type { RpcContext, RpcHandlers } from "./context.ts";

function promptContent(message: string, images?: ImageContent[]): string | (TextContent | ImageContent)[] {
  return images && images.length > 0 ? [{ type: "text", text: message }, ...images] : message;
}

/**
 * Answers the command, then starts the run, so the response precedes the run's events; a run
 * that fails to start is reported later under the same id.
 */
function startPrompt(rpc: RpcContext, command: string, id: string | undefined, content: string | (TextContent | ImageContent)[], data?: unknown, after?: () => void): void {
  rpc.respond(command, id, data);
  rpc.agent
    .prompt(content)
    .catch((error) => rpc.fail(command, id, error))
    .finally(() => after?.());
}

/** A prompt that is `/command args` or `/skill:name args`, expanded; undefined for any other text. */
async function expandInvocation(rpc: RpcContext, message: string) {
  if (!message.startsWith("/")) return undefined;
  const { prepareInvocation } = await import("../../../core/session-host/invoke.ts");
  // A command's model applies to a run it starts, not to one already going.
  return prepareInvocation(rpc.runtime, rpc.agent, message, { switchModel: !rpc.agent.isRunning });
}

/** Steers or queues while a run goes; starts one otherwise. */
async function steerOrFollowUp(rpc: RpcContext, command: Extract<RpcCommand, { type: "steer" | "follow_up" }>): Promise<void> {
  const { id } = command;
  const agent = rpc.agent;
  const content = promptContent(command.message, command.images);
  if (!agent.isRunning) return startPrompt(rpc, command.type, id, content, { agentInvoked: true });
  if (command.type === "steer") agent.steer(content);
  else agent.followUp(content);
  return rpc.respond(command.type, id);
}

/** Commands that start, steer or stop a run. */
export const PROMPT_COMMANDS = {
  async prompt(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    const invocation = await expandInvocation(rpc, command.message);
    // An extension's command that did its work itself: nothing goes to the model.
    if (invocation && invocation.content.length === 0) {
      invocation.restore();
      return rpc.respond("prompt", id, { agentInvoked: false, invoked: { kind: invocation.kind, name: invocation.name, path: invocation.path }, warnings: invocation.warnings });
    }
    const content = invocation ? [...invocation.content, ...(command.images ?? [])] : promptContent(command.message, command.images);
    if (agent.isRunning) {
      if (!command.streamingBehavior) throw new SessionError("busy", 'the agent is working: send streamingBehavior "steer" or "followUp", or use steer / follow_up');
      if (command.streamingBehavior === "steer") agent.steer(content);
      else agent.followUp(content);
      return rpc.respond("prompt", id, { agentInvoked: false, queued: command.streamingBehavior });
    }
    if (!invocation) return startPrompt(rpc, "prompt", id, content, { agentInvoked: true });
    const { kind, name, path, warnings } = invocation;
    return startPrompt(rpc, "prompt", id, content, { agentInvoked: true, invoked: { kind, name, path }, warnings }, invocation.restore);
  },
  async get_available_commands(rpc, command) {
    const { id } = command;
    // MCP servers' prompts are known once their servers answered: the list waits for them (each within its start timeout).
    const extensions = rpc.runtime.extensions;
    return rpc.later("get_available_commands", id, () => extensions.settleProviders().then(() => ({ commands: availableCommands(extensions) })));
  },
  steer: steerOrFollowUp,
  follow_up: steerOrFollowUp,
  async abort(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    agent.abort();
    await agent.idle();
    return rpc.respond("abort", id);
  },
  async abort_and_prompt(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    agent.abort();
    await agent.idle();
    return startPrompt(rpc, "abort_and_prompt", id, promptContent(command.message, command.images));
  },
} satisfies RpcHandlers;
