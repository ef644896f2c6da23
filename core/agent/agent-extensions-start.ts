import type { AgentExtensions } from "../extensions/agent-extensions.ts";
import type { SessionWriter } from "../session/writer.ts";
import type { AgentOptions } from "./agent-options.ts";

/**
 * An agent's hooks and extensions, made for its session (whose file may come later: `writer` is
 * read when a hook runs), with Notification and PermissionRequest hooks hearing its approval gate.
 */
export function startExtensions(options: AgentOptions, writer: () => SessionWriter | undefined): AgentExtensions | undefined {
  const extensions = options.extensions?.({
    get id() {
      return writer()?.header.id ?? "none";
    },
    get transcriptPath() {
      return writer()?.path ?? "";
    },
    cwd: options.cwd,
    subagent: (options.depth ?? 0) > 0,
  });
  // A subagent shares its parent's gate: the parent's session is the one that notifies.
  if (!extensions || options.depth) return extensions;
  if (extensions.notification) {
    const notify = extensions.notification.bind(extensions);
    options.gate.onAsk = (request) => void notify(`omp needs your permission to use ${request.toolName}: ${request.summary}`).catch(() => undefined);
  }
  if (extensions.permissionRequest) {
    const decide = extensions.permissionRequest.bind(extensions);
    options.gate.beforeAsk = (request) => decide(request.toolName, (request.input ?? {}) as Record<string, unknown>).catch(() => undefined);
  }
  return extensions;
}
