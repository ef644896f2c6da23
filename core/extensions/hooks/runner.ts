import type { AgentExtensions, ExtensionsFactory, SessionInfo, SessionStartSource } from "../../agent/agent-extensions.ts";
import type { BeforeToolOutcome, ToolCallInfo } from "../../tools/hook-points.ts";
import type { ToolResult } from "../../tools/types.ts";
import { fromClaude, matchNames, toClaude } from "./claude-tools.ts";
import { runHookCommand } from "./command.ts";
import type { CommandHook } from "./load.ts";
import { HookOutput, type HookEvent } from "./schema.ts";

/** One hook's answer, read the way Claude Code reads it. */
interface HookAnswer {
  hook: CommandHook;
  /** Exit 2, `decision: "block"`, or `permissionDecision: "deny"`: the reason. */
  block?: string;
  /** `continue: false`: the reason the run must stop. */
  halt?: string;
  /** Exit 0 stdout (plain) or additionalContext. */
  context?: string;
  output?: HookOutput;
}

export interface ClaudeHooksOptions {
  hooks: readonly CommandHook[];
  /** The environment hooks inherit. */
  env: Record<string, string | undefined>;
  /** A hook that failed (exit code other than 0 and 2, timeout): one line for the user. */
  warn: (line: string) => void;
  /** The approval mode, sent as Claude's permission_mode. */
  permissionMode?: string;
}

function parseOutput(stdout: string): HookOutput | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed = HookOutput.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const resultText = (result: ToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");

/** Claude Code's `type: command` hooks for one session: spawned per event, in parallel, JSON in and out. */
class SessionHooks implements AgentExtensions {
  readonly toolHooks;

  constructor(
    private readonly options: ClaudeHooksOptions,
    private readonly session: SessionInfo,
  ) {
    const has = (event: HookEvent) => options.hooks.some((hook) => hook.event === event);
    this.toolHooks = has("PreToolUse") || has("PostToolUse") ? [this] : [];
  }

  private matching(event: HookEvent, names: readonly string[] | undefined): CommandHook[] {
    return this.options.hooks.filter(
      (hook) => hook.event === event && (!hook.pattern || !names || names.some((name) => hook.pattern!.test(name))),
    );
  }

  /** Runs every hook of `event` that matches `names` (all of them when undefined), in parallel. */
  async run(event: HookEvent, fields: Record<string, unknown>, names?: readonly string[], signal?: AbortSignal): Promise<HookAnswer[]> {
    const hooks = this.matching(event, names);
    if (hooks.length === 0) return [];
    const { cwd } = this.session;
    const stdin = JSON.stringify({
      session_id: this.session.id,
      transcript_path: this.session.transcriptPath,
      cwd,
      ...(this.options.permissionMode ? { permission_mode: this.options.permissionMode } : {}),
      hook_event_name: event,
      ...fields,
    });
    return Promise.all(
      hooks.map(async (hook) => {
        const env = { ...this.options.env, CLAUDE_PROJECT_DIR: cwd, OMP_PROJECT_DIR: cwd };
        if (hook.pluginRoot) Object.assign(env, { CLAUDE_PLUGIN_ROOT: hook.pluginRoot, OMP_PLUGIN_ROOT: hook.pluginRoot });
        const ran = await runHookCommand(hook.command, { cwd, env, stdin, timeoutMs: hook.timeoutMs, signal });
        const answer: HookAnswer = { hook };
        if (ran.timedOut) {
          this.options.warn(`${event} hook \`${hook.command}\` was killed after its ${hook.timeoutMs / 1000} s timeout`);
          return answer;
        }
        if (ran.exitCode === 2) {
          answer.block = ran.stderr.trim() || `blocked by the ${event} hook \`${hook.command}\``;
          return answer;
        }
        if (ran.exitCode !== 0) {
          if (!signal?.aborted) this.options.warn(`${event} hook \`${hook.command}\` exited ${ran.exitCode ?? "on a signal"}${ran.stderr.trim() ? `: ${ran.stderr.trim()}` : ""}`);
          return answer;
        }
        const output = parseOutput(ran.stdout);
        if (!output) {
          if (ran.stdout.trim()) answer.context = ran.stdout.trim();
          return answer;
        }
        answer.output = output;
        const specific = output.hookSpecificOutput;
        if (specific?.additionalContext) answer.context = specific.additionalContext;
        if (output.decision === "block") answer.block = output.reason ?? `blocked by the ${event} hook \`${hook.command}\``;
        if (specific?.permissionDecision === "deny") answer.block = specific.permissionDecisionReason ?? output.reason ?? `denied by the ${event} hook \`${hook.command}\``;
        if (output.continue === false) answer.halt = output.stopReason ?? `stopped by the ${event} hook \`${hook.command}\``;
        return answer;
      }),
    );
  }

  async beforeToolCall(call: ToolCallInfo, signal: AbortSignal): Promise<BeforeToolOutcome | undefined> {
    const { toolName, toolInput } = toClaude(call.toolName, call.input);
    const answers = await this.run("PreToolUse", { tool_name: toolName, tool_input: toolInput, tool_use_id: call.toolCallId }, matchNames(call.toolName), signal);
    if (answers.length === 0) return undefined;
    const stopped = answers.find((answer) => answer.block !== undefined || answer.halt !== undefined);
    if (stopped) return { block: stopped.block ?? stopped.halt! };
    const outcome: BeforeToolOutcome = {};
    for (const answer of answers) {
      const specific = answer.output?.hookSpecificOutput;
      if (specific?.updatedInput) outcome.input = fromClaude(call.toolName, specific.updatedInput);
      const decision = specific?.permissionDecision ?? (answer.output?.decision === "approve" ? "allow" : undefined);
      if (decision === "ask" || (decision === "allow" && outcome.decision === undefined)) {
        outcome.decision = decision;
        if (specific?.permissionDecisionReason) outcome.reason = specific.permissionDecisionReason;
      }
    }
    return outcome;
  }

  async afterToolCall(call: ToolCallInfo, result: ToolResult, signal: AbortSignal): Promise<ToolResult | undefined> {
    const { toolName, toolInput } = toClaude(call.toolName, call.input);
    const response = { output: resultText(result), is_error: result.isError ?? false, ...(result.details === undefined ? {} : { details: result.details }) };
    const answers = await this.run("PostToolUse", { tool_name: toolName, tool_input: toolInput, tool_response: response, tool_use_id: call.toolCallId }, matchNames(call.toolName), signal);
    const notes = answers.flatMap((answer) => [answer.block ?? answer.halt, answer.context].filter((note): note is string => note !== undefined));
    if (notes.length === 0) return undefined;
    return { ...result, content: [...result.content, { type: "text", text: `PostToolUse hook feedback:\n${notes.join("\n")}` }] };
  }

  async sessionStart(source: SessionStartSource): Promise<string[]> {
    const answers = await this.run("SessionStart", { source }, [source]);
    return answers.flatMap((answer) => (answer.context === undefined ? [] : [answer.context]));
  }

  async userPrompt(prompt: string): Promise<{ block?: string; context: string[] }> {
    const answers = await this.run("UserPromptSubmit", { prompt });
    const stopped = answers.find((answer) => answer.block !== undefined || answer.halt !== undefined);
    const context = answers.flatMap((answer) => (answer.context === undefined ? [] : [answer.context]));
    return stopped ? { block: stopped.block ?? stopped.halt!, context } : { context };
  }

  async stop(stopHookActive: boolean): Promise<string | undefined> {
    const answers = await this.run(this.session.subagent ? "SubagentStop" : "Stop", { stop_hook_active: stopHookActive });
    if (answers.some((answer) => answer.halt !== undefined)) return undefined;
    const reasons = answers.flatMap((answer) => (answer.block === undefined ? [] : [answer.block]));
    return reasons.length > 0 ? reasons.join("\n") : undefined;
  }

  async preCompact(trigger: "manual" | "auto"): Promise<void> {
    await this.run("PreCompact", { trigger, custom_instructions: "" }, [trigger]);
  }

  async notification(message: string): Promise<void> {
    await this.run("Notification", { message });
  }

  async sessionEnd(reason: string): Promise<void> {
    await this.run("SessionEnd", { reason });
  }
}

/** The agent extension that runs these hooks, one instance per session. */
export function claudeHooks(options: ClaudeHooksOptions): ExtensionsFactory {
  return (session) => new SessionHooks(options, session);
}
