import type { Agent } from "../agent/agent.ts";
import type { Runtime } from "../agent/runtime.ts";
import { describeError } from "../errors/omp-error.ts";
import { type Invocation, expandSlashPrompt } from "../extensions/expand.ts";

/** A slash command or skill ready to send: its prompt, and what to do once its run is over. */
export interface PreparedInvocation extends Invocation {
  /** Switches back from the command's `model`, if it switched; call when the run ends. */
  restore(): void;
  /** A UserPromptExpansion hook stopped it: `content` is empty and `warnings` say why. */
  blocked?: boolean;
}

/**
 * `/name args` as every mode runs it (print, json, rpc, interactive): expanded into its prompt
 * (!`cmd` lines run, files inlined) and, when the command names a `model`, the agent switched to
 * it for this one prompt. Undefined when no command or skill has that name: the caller sends the
 * text as it is. A model that cannot be used is a warning; the prompt goes to the current one.
 */
export async function prepareInvocation(
  runtime: Runtime,
  agent: Agent,
  text: string,
  options: { signal?: AbortSignal; reserved?: (name: string) => boolean; switchModel?: boolean } = {},
): Promise<PreparedInvocation | undefined> {
  const { switchModel: maySwitch = true, ...expandOptions } = options;
  const invocation = await expandSlashPrompt(text, runtime.extensions, { cwd: runtime.options.cwd, artifactsDir: agent.artifactsDir, redact: (output) => agent.redact(output), ...(agent.options.sandbox ? { sandbox: agent.options.sandbox } : {}), session: { id: agent.writer?.header.id ?? "none", file: agent.writer?.path ?? "" }, ...expandOptions });
  if (!invocation) return undefined;
  const blocked = await expansionHooks(agent, invocation, text);
  let restore = () => {};
  if (invocation.model && maySwitch) {
    try {
      restore = await switchModel(runtime, agent, invocation.model);
    } catch (error) {
      invocation.warnings.push(`/${invocation.name}: model ${JSON.stringify(invocation.model)} cannot be used (${describeError(error)}); using ${agent.model.provider}/${agent.model.id}`);
    }
  }
  return { ...invocation, restore, ...(blocked ? { blocked } : {}) };
}

/**
 * UserPromptExpansion hooks on what the command became: a block sends nothing and says why;
 * their context goes in front of the prompt, as UserPromptSubmit's does.
 */
async function expansionHooks(agent: Agent, invocation: Invocation, text: string): Promise<boolean> {
  if (!agent.extensions?.promptExpansion || invocation.content.length === 0) return false;
  const prompt = invocation.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const args = text.trim().replace(/^\/\S+\s*/, "");
  const outcome = await agent.extensions.promptExpansion({ name: invocation.name, args, source: invocation.kind === "skill" ? "skill" : invocation.path.startsWith("mcp:") ? "mcp" : "command", prompt });
  if (outcome.block !== undefined) {
    invocation.content = [];
    invocation.warnings.push(`/${invocation.name} was blocked by a UserPromptExpansion hook: ${outcome.block}`);
    return true;
  }
  if (outcome.context.length > 0) invocation.content = [...outcome.context.map((context) => ({ type: "text" as const, text: `<system-reminder>\n${context}\n</system-reminder>` })), ...invocation.content];
  return false;
}

/**
 * Switches to `pattern` (a command's `model`: "haiku", "claude-haiku-4-5", "openai/gpt-5-mini"),
 * looked for first among the current provider's models; returns what switches back.
 */
async function switchModel(runtime: Runtime, agent: Agent, pattern: string): Promise<() => void> {
  const selection = await runtime.selectModel(pattern.includes("/") ? pattern : `${agent.model.provider}/${pattern}`, false).catch(() => runtime.selectModel(pattern, false));
  const previous = { model: agent.model, apiKey: agent.apiKey };
  if (selection.model.provider === previous.model.provider && selection.model.id === previous.model.id) return () => {};
  agent.setModel(selection.model, selection.apiKey);
  return () => agent.setModel(previous.model, previous.apiKey);
}
