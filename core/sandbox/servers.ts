import type { SandboxPolicy } from "./policy.ts";
import { type SandboxedCommand, sandboxCommand } from "./wrap.ts";

/**
 * How servers a project configured (language servers, MCP servers) are confined: by the session's
 * command policy, network included, with the environment rules of a model's command. A cloned
 * repository's `.mcp.json` or `.lsp.json` is as much the model's reach as a command it runs (the
 * model can write those files), so it gets no more than `bash` does.
 */
export interface ServerSandbox {
  policy: SandboxPolicy;
  /** The secret values omp knows, read when a server starts. */
  secrets: () => readonly string[];
}

/** `argv` and `env` for a server: confined when `sandbox` is given, as they are for the user's own servers. */
export function serverCommand(argv: string[], env: Record<string, string | undefined>, sandbox: ServerSandbox | undefined): SandboxedCommand {
  if (sandbox) return sandboxCommand(argv, { policy: sandbox.policy, env, secrets: sandbox.secrets() });
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) kept[name] = value;
  return { argv, env: kept, confinement: "none", droppedEnv: [] };
}
