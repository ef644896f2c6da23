import { SessionError } from "../../../core/errors/session-error.ts";
import type { RpcHandlers } from "./context.ts";

/** Commands that pick the model and its thinking level. */
export const MODEL_COMMANDS = {
  async set_model(rpc, command) {
    const { id } = command;
    const selection = await rpc.runtime.selectModel(`${command.provider}/${command.modelId}`, false);
    if (selection.model.provider !== command.provider || selection.model.id !== command.modelId) {
      throw new SessionError("invalid-input", `no model ${command.provider}/${command.modelId}; see get_available_models`);
    }
    rpc.control.setModel(selection);
    return rpc.respond("set_model", id, { provider: selection.model.provider, id: selection.model.id, thinkingLevel: rpc.agent.thinking });
  },
  async get_available_models(rpc, command) {
    const { id } = command;
    // Probing local servers can take a moment; prompts and aborts are not held up by it.
    return rpc.later("get_available_models", id, async () => ({
      models: (await rpc.runtime.availableModels()).map((m) => ({ provider: m.provider, id: m.id, name: m.name, api: m.api, contextWindow: m.contextWindow, reasoning: m.reasoning, cost: m.cost })),
    }));
  },
  async set_thinking_level(rpc, command) {
    const { id } = command;
    const agent = rpc.agent;
    if (!rpc.control.setThinking(command.level)) throw new SessionError("invalid-input", `${agent.model.provider}/${agent.model.id} has no thinking levels`);
    return rpc.respond("set_thinking_level", id);
  },
  async cycle_thinking_level(rpc, command) {
    const { id } = command;
    const level = rpc.control.cycleThinking();
    return rpc.respond("cycle_thinking_level", id, level === undefined ? null : { level });
  },
  async cycle_model(rpc, command) {
    const { id } = command;
    const selection = await rpc.control.cycleModel();
    if (!selection) return rpc.respond("cycle_model", id, null);
    return rpc.respond("cycle_model", id, { model: { provider: selection.model.provider, id: selection.model.id }, thinkingLevel: rpc.agent.thinking, isScoped: rpc.host.runtime.cycleScoped });
  },
} satisfies RpcHandlers;
