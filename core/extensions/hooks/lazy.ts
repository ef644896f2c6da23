import type { AgentExtensions, ExtensionsFactory } from "../agent-extensions.ts";
import type { ToolHookPoint } from "../../tools/hook-points.ts";
import { HOOK_EVENTS } from "./events.ts";
import type { ClaudeHooksOptions } from "./runner.ts";

/** A hooks block and where it came from: config.yml's `hooks:` or a plugin's hooks.json. */
export interface HookSource {
  /** The file, for messages and listings. */
  file: string;
  /** The block as read: event → matcher groups. */
  block: unknown;
  /** A plugin's folder: `CLAUDE_PLUGIN_ROOT` for its hooks. */
  pluginRoot?: string;
}

const KNOWN = new Set<string>(HOOK_EVENTS);

/**
 * Claude-style hooks that load (zod, the schema, the runner) the first time an event that has
 * hooks happens, so configured PreToolUse hooks cost nothing before the first request. Sources
 * naming an unknown event load at once, so that the mistake is reported at start.
 */
export function lazyClaudeHooks(sources: readonly HookSource[], options: Omit<ClaudeHooksOptions, "hooks">): ExtensionsFactory {
  const events = new Set(sources.flatMap((source) => (source.block && typeof source.block === "object" ? Object.keys(source.block) : ["?"])));
  // A background hook with asyncRewake is waited for when the model would stop.
  const rewake = sources.some((source) => JSON.stringify(source.block ?? null).includes('"asyncRewake"'));
  let loading: Promise<ExtensionsFactory | undefined> | undefined;
  const load = () =>
    (loading ??= Promise.all([import("./load.ts"), import("./runner.ts")]).then(([{ loadHooks }, { claudeHooks }]) => {
      const { hooks, problems } = loadHooks(sources);
      for (const problem of problems) options.warn(problem);
      return hooks.length > 0 ? claudeHooks({ ...options, hooks }) : undefined;
    }));
  if ([...events].some((event) => !KNOWN.has(event))) void load();
  const has = (event: string) => events.has(event);
  return (session) => {
    let instance: Promise<AgentExtensions | undefined> | undefined;
    const hooks = () => (instance ??= load().then((factory) => factory?.(session)));
    const toolHook = async () => (await hooks())?.toolHooks[0];
    const toolHooks: ToolHookPoint[] =
      has("PreToolUse") || has("PostToolUse") || has("PostToolUseFailure")
        ? [
            {
              beforeToolCall: async (call, signal) => (await toolHook())?.beforeToolCall?.(call, signal),
              afterToolCall: async (call, result, signal) => (await toolHook())?.afterToolCall?.(call, result, signal),
            },
          ]
        : [];
    const extensions: AgentExtensions = { toolHooks };
    if (has("SessionStart") || has("SubagentStart")) extensions.sessionStart = async (source) => (await (await hooks())?.sessionStart?.(source)) ?? [];
    if (has("UserPromptSubmit")) extensions.userPrompt = async (prompt) => (await (await hooks())?.userPrompt?.(prompt)) ?? { context: [] };
    if (has("UserPromptExpansion")) extensions.promptExpansion = async (expansion) => (await (await hooks())?.promptExpansion?.(expansion)) ?? { context: [] };
    if (has("Stop") || has("SubagentStop") || rewake) extensions.stop = async (active) => (await hooks())?.stop?.(active);
    if (has("PreCompact")) extensions.preCompact = async (trigger) => (await hooks())?.preCompact?.(trigger);
    if (has("PostCompact")) extensions.postCompact = async (trigger, summary) => (await hooks())?.postCompact?.(trigger, summary);
    if (has("StopFailure")) extensions.stopFailure = async (error, kind) => (await hooks())?.stopFailure?.(error, kind);
    if (has("Notification")) extensions.notification = async (message) => (await hooks())?.notification?.(message);
    if (has("PermissionRequest")) extensions.permissionRequest = async (tool, input) => (await hooks())?.permissionRequest?.(tool, input);
    if (has("SessionEnd")) extensions.sessionEnd = async (reason) => (await hooks())?.sessionEnd?.(reason);
    return extensions;
  };
}
