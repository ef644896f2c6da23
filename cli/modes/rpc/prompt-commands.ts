import type { ImageContent, TextContent } from "../../../core/ai/messages.ts";
import { availableCommands } from "../../../core/extensions/listing.ts";
import type { RpcCommand } from "../../../core/rpc/protocol.ts";
import type { Accepted } from "../../../core/session-host/host.ts";
import type { HostOp } from "../../../core/session-host/protocol.ts";
import type { RpcContext, RpcHandlers } from "./context.ts";

function promptContent(message: string, images?: ImageContent[]): (TextContent | ImageContent)[] {
  return [{ type: "text", text: message }, ...(images ?? [])];
}

/** The response to a message the host took: started a run (or a command did its work), or queued. */
function acceptedData(accepted: Accepted): Record<string, unknown> {
  if (accepted.queued) return { agentInvoked: false, queued: accepted.queued };
  const { invoked, warnings } = accepted;
  if (!invoked) return { agentInvoked: true, ...(warnings.length > 0 ? { warnings } : {}) };
  return { agentInvoked: !accepted.handled, invoked, warnings };
}

/**
 * Submits a message and answers once the host took it, so the response precedes the run's
 * events and the next command sees the run going; a run that fails later is reported under the
 * same id. `data` shapes the response.
 */
function submitMessage(rpc: RpcContext, command: string, id: string | undefined, op: Extract<HostOp, { type: "prompt" | "steer" | "follow_up" }>, data: (accepted: Accepted) => unknown): Promise<void> {
  return new Promise<void>((taken) => {
    rpc.host
      .submit(op, {
        accepted: (accepted) => {
          rpc.respond(command, id, data(accepted));
          taken();
        },
      })
      .catch((error) => rpc.fail(command, id, error))
      .finally(taken);
  });
}

/** Steers or queues while a run goes; starts one otherwise. */
async function steerOrFollowUp(rpc: RpcContext, command: Extract<RpcCommand, { type: "steer" | "follow_up" }>): Promise<void> {
  // Queued: answered bare, as the original does; an extension's command that did its work ran nothing.
  const data = (accepted: Accepted) => (accepted.queued ? undefined : { agentInvoked: !accepted.handled });
  return submitMessage(rpc, command.type, command.id, { type: command.type, content: promptContent(command.message, command.images) }, data);
}

/** Commands that start, steer or stop a run. */
export const PROMPT_COMMANDS = {
  async prompt(rpc, command) {
    const content = promptContent(command.message, command.images);
    if (!rpc.host.isRunning) return submitMessage(rpc, "prompt", command.id, { type: "prompt", content }, acceptedData);
    if (!command.streamingBehavior) throw new Error('the agent is working: send streamingBehavior "steer" or "followUp", or use steer / follow_up');
    const type = command.streamingBehavior === "steer" ? "steer" : "follow_up";
    return submitMessage(rpc, "prompt", command.id, { type, content }, acceptedData);
  },
  async get_available_commands(rpc, command) {
    // MCP servers' prompts are known once their servers answered: the list waits for them (each within its start timeout).
    const extensions = rpc.host.runtime.extensions;
    void rpc.later("get_available_commands", command.id, () => extensions.settleProviders().then(() => ({ commands: availableCommands(extensions) })));
  },
  steer: steerOrFollowUp,
  follow_up: steerOrFollowUp,
  async abort({ host, respond }, command) {
    await host.submit({ type: "abort" });
    return respond("abort", command.id);
  },
  async abort_and_prompt(rpc, command) {
    await rpc.host.submit({ type: "abort" });
    return submitMessage(rpc, "abort_and_prompt", command.id, { type: "prompt", content: promptContent(command.message, command.images) }, () => undefined);
  },
} satisfies RpcHandlers;
