import type { ToolContext } from "../tools/types.ts";
import type { AgentOptions } from "./agent-options.ts";

/** What differs per agent and per turn; the rest of a tool call's context comes from the agent's options. */
export interface ToolContextParts extends Pick<ToolContext, "signal" | "fileReads" | "secrets" | "redact" | "subagents" | "jobScope" | "hasTool" | "callOf" | "checkpoints"> {}

/**
 * The context a turn's tool calls run with: the session's folder, limits, sandbox and editor,
 * and the approval gate's questions (network, guarded writes, hosts, a rerun outside the sandbox).
 */
export function toolContext(options: AgentOptions, parts: ToolContextParts): ToolContext {
  const { gate } = options;
  return {
    cwd: options.cwd,
    artifactsDir: options.artifactsDir,
    ...parts,
    ...(options.bashTimeoutSeconds === undefined ? {} : { bashTimeoutSeconds: options.bashTimeoutSeconds }),
    ...(options.shell ? { shell: options.shell } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    escalate: (command, refusal, explanation) => gate.escalate(command, refusal, explanation),
    ...(options.editor ? { editor: options.editor } : {}),
    ...(options.web ? { web: options.web } : {}),
    approve: (toolName, key, summary, asEffect, url) => gate.ask(toolName, asEffect ?? "network", key, summary, asEffect !== undefined, url),
    ...(gate.paths ? { paths: gate.paths } : {}),
    authorizeWrite: (verdict, toolCallId) => gate.authorizeWrite(verdict, toolCallId),
    egress: (request) => gate.askEgress(request),
    ...(options.lsp ? { lsp: options.lsp } : {}),
    ...(options.question ? { question: options.question } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    visionModel: async () => {
      if (options.model.input.includes("image")) return { model: options.model, apiKey: options.apiKey };
      for (const role of ["vision", "smol"]) {
        const candidate = await options.roleModel?.(role).catch(() => undefined);
        if (candidate?.model.input.includes("image")) return candidate;
      }
      return undefined;
    },
  };
}
