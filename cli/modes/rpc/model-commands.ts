import type { RpcHandlers } from "./context.ts";

/** Commands that pick the model and its thinking level. */
export const MODEL_COMMANDS = {
  async set_model({ host, respond }, command) {
    const { id } = command;
    // rpc names one model exactly; a pattern that finds another one is refused, not followed.
    const selection = await host.runtime.selectModel(`${command.provider}/${command.modelId}`, false);
    if (selection.model.provider !== command.provider || selection.model.id !== command.modelId) {
      throw new Error(`no model ${command.provider}/${command.modelId}; see get_available_models`);
    }
    await host.submit({ type: "set_model", model: `${command.provider}/${command.modelId}` });
    return respond("set_model", id, { provider: host.view.model.provider, id: host.view.model.id, thinkingLevel: host.view.thinking });
  },
  async get_available_models(rpc, command) {
    const { id } = command;
    // Probing local servers can take a moment; prompts and aborts are not held up by it.
    void rpc.later("get_available_models", id, async () => ({
      models: (await rpc.host.runtime.availableModels()).map((m) => ({ provider: m.provider, id: m.id, name: m.name, api: m.api, contextWindow: m.contextWindow, reasoning: m.reasoning, cost: m.cost })),
    }));
  },
  async set_thinking_level({ host, respond }, command) {
    await host.submit({ type: "set_thinking", level: command.level });
    return respond("set_thinking_level", command.id);
  },
  async cycle_thinking_level({ host, respond }, command) {
    const level = host.cycleThinking();
    return respond("cycle_thinking_level", command.id, level === undefined ? null : { level });
  },
  async cycle_model({ host, respond }, command) {
    const { id } = command;
    const selection = await host.cycleModel();
    if (!selection) return respond("cycle_model", id, null);
    return respond("cycle_model", id, { model: { provider: selection.model.provider, id: selection.model.id }, thinkingLevel: host.view.thinking, isScoped: host.runtime.cycleScoped });
  },
} satisfies RpcHandlers;
