import type { FailureKind } from "../ai/failure.ts";
import type { ToolHookPoint } from "../tools/hook-points.ts";

/** The session an agent's extensions serve; read when a hook runs (the file may come later). */
export interface SessionInfo {
  readonly id: string;
  /** The session file; "" with --no-session. */
  readonly transcriptPath: string;
  readonly cwd: string;
  /** A subagent's session: its Stop is a SubagentStop. */
  readonly subagent: boolean;
}

export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/**
 * What hooks and extensions may do in an agent's run, at the points the agent calls them. Every
 * method is optional; an agent with none of them pays nothing.
 */
export interface AgentExtensions {
  toolHooks: readonly ToolHookPoint[];
  /** Context for the model at the start of the session (added to the first prompt). */
  sessionStart?(source: SessionStartSource): Promise<string[]>;
  /** Before a prompt is sent: stop it (the reason is shown), or add context to it. */
  userPrompt?(prompt: string): Promise<{ block?: string; context: string[] }>;
  /** A slash command expanded into its prompt: stop it (the reason is shown), or add context to it. */
  promptExpansion?(expansion: PromptExpansion): Promise<{ block?: string; context: string[] }>;
  /** The model is done: a reason returned makes it go on, with the reason as its next message. */
  stop?(stopHookActive: boolean): Promise<string | undefined>;
  preCompact?(trigger: "manual" | "auto"): Promise<void>;
  /** The conversation was compacted into `summary`: PostCompact hooks. */
  postCompact?(trigger: "manual" | "auto", summary: string): Promise<void>;
  /** The run ended on a provider error: StopFailure hooks (told; nothing they say changes the run). */
  stopFailure?(error: string, kind?: FailureKind): Promise<void>;
  /** omp needs the user (an approval prompt): Notification hooks. */
  notification?(message: string): Promise<void>;
  /** A call needs approval: PermissionRequest hooks may allow or deny it for the user. */
  permissionRequest?(toolName: string, input: Record<string, unknown>): Promise<{ allow: boolean; reason?: string } | undefined>;
  sessionEnd?(reason: string): Promise<void>;
}

/** What `/name args` became, for UserPromptExpansion hooks. */
export interface PromptExpansion {
  name: string;
  args: string;
  /** Where the command came from: a source kind (user, project, plugin), or mcp. */
  source: string;
  prompt: string;
}

/** Made once per agent, for its session. */
export type ExtensionsFactory = (session: SessionInfo) => AgentExtensions;

/** Several sources (Claude hooks, TypeScript extensions, plugins) as one, each called in order. */
export function combineExtensions(factories: readonly ExtensionsFactory[]): ExtensionsFactory | undefined {
  if (factories.length === 0) return undefined;
  if (factories.length === 1) return factories[0];
  return (session) => {
    const all = factories.map((factory) => factory(session));
    return {
      toolHooks: all.flatMap((extensions) => extensions.toolHooks),
      async sessionStart(source) {
        return (await Promise.all(all.map((e) => e.sessionStart?.(source) ?? []))).flat();
      },
      async userPrompt(prompt) {
        const none: { block?: string; context: string[] } = { context: [] };
        const outcomes = await Promise.all(all.map((e) => e.userPrompt?.(prompt) ?? none));
        const block = outcomes.find((outcome) => outcome.block !== undefined)?.block;
        return { ...(block === undefined ? {} : { block }), context: outcomes.flatMap((outcome) => outcome.context) };
      },
      async promptExpansion(expansion) {
        const none: { block?: string; context: string[] } = { context: [] };
        const outcomes = await Promise.all(all.map((e) => e.promptExpansion?.(expansion) ?? none));
        const block = outcomes.find((outcome) => outcome.block !== undefined)?.block;
        return { ...(block === undefined ? {} : { block }), context: outcomes.flatMap((outcome) => outcome.context) };
      },
      async stop(active) {
        const reasons = await Promise.all(all.map((e) => e.stop?.(active)));
        const given = reasons.filter((reason): reason is string => reason !== undefined);
        return given.length > 0 ? given.join("\n") : undefined;
      },
      async notification(message) {
        await Promise.all(all.map((e) => e.notification?.(message)));
      },
      async permissionRequest(toolName, input) {
        // A deny from any source wins over an allow.
        const decisions = (await Promise.all(all.map((e) => e.permissionRequest?.(toolName, input)))).filter((decision) => decision !== undefined);
        return decisions.find((decision) => !decision.allow) ?? decisions[0];
      },
      async preCompact(trigger) {
        await Promise.all(all.map((e) => e.preCompact?.(trigger)));
      },
      async postCompact(trigger, summary) {
        await Promise.all(all.map((e) => e.postCompact?.(trigger, summary)));
      },
      async stopFailure(error, kind) {
        await Promise.all(all.map((e) => e.stopFailure?.(error, kind)));
      },
      async sessionEnd(reason) {
        await Promise.all(all.map((e) => e.sessionEnd?.(reason)));
      },
    };
  };
}
