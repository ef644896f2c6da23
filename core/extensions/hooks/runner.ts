import type { FailureKind } from "../../ai/failure.ts";
import type { AgentExtensions, ExtensionsFactory, PromptExpansion, SessionInfo, SessionStartSource } from "../agent-extensions.ts";
import type { BeforeToolOutcome, ToolCallInfo } from "../../tools/hook-points.ts";
import type { ToolResult } from "../../tools/types.ts";
import { ruleMatches } from "../../permissions/rules.ts";
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

/** omp's approval modes as Claude Code's permission_mode values, which hooks written for it test. */
export function claudePermissionMode(mode: string | undefined): string | undefined {
  switch (mode) {
    case undefined:
      return undefined;
    case "yolo":
      return "bypassPermissions";
    case "plan":
      return "plan";
    case "auto-edit":
    case "accept-edits":
    case "edits":
      return "acceptEdits";
    default:
      return "default";
  }
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

/** omp's failure kinds as the error types StopFailure matchers are written against. */
const CLAUDE_ERROR_TYPES: Partial<Record<FailureKind, string>> = {
  auth: "authentication_failed",
  "usage-limit": "rate_limit",
  "rate-limit": "rate_limit",
  quota: "billing_error",
  overloaded: "server_error",
  server: "server_error",
  "bad-request": "invalid_request",
  "context-overflow": "invalid_request",
  "thinking-signature": "invalid_request",
};

/** What prompt hooks decided: the first block (or stop) wins; every context is kept, `extra` after. */
function promptOutcome(answers: HookAnswer[], extra: string[]): { block?: string; context: string[] } {
  const stopped = answers.find((answer) => answer.block !== undefined || answer.halt !== undefined);
  const context = [...answers.flatMap((answer) => (answer.context === undefined ? [] : [answer.context])), ...extra];
  return stopped ? { block: stopped.block ?? stopped.halt!, context } : { context };
}

/** Claude Code's `type: command` hooks for one session: spawned per event, in parallel, JSON in and out. */
class SessionHooks implements AgentExtensions {
  readonly toolHooks;
  /** Background hooks still running with `asyncRewake`: their exit 2 is for the model. */
  private readonly rewaking = new Set<Promise<void>>();
  /** What finished rewake hooks have for the model, given at its next step. */
  private readonly wake: string[] = [];

  constructor(
    private readonly options: ClaudeHooksOptions,
    private readonly session: SessionInfo,
  ) {
    const has = (event: HookEvent) => options.hooks.some((hook) => hook.event === event);
    this.toolHooks = has("PreToolUse") || has("PostToolUse") || has("PostToolUseFailure") || options.hooks.some((hook) => hook.background === "rewake") ? [this] : [];
  }

  private matching(event: HookEvent, names: readonly string[] | undefined, call?: ToolCallInfo): CommandHook[] {
    return this.options.hooks.filter(
      (hook) =>
        hook.event === event &&
        (!hook.pattern || !names || names.some((name) => hook.pattern!.test(name))) &&
        // `if` is a permission rule over the tool call, matched as settings rules are.
        (!hook.condition || !call || ruleMatches({ ...hook.condition, base: this.session.cwd }, call.toolName, call.input, this.session.cwd)),
    );
  }

  /** The model's share of finished rewake hooks, once. */
  private takeWake(): string[] {
    return this.wake.splice(0);
  }

  /**
   * Runs every hook of `event` that matches `names` (all of them when undefined) and the call's
   * `if`, in parallel. Background hooks (`async`, `asyncRewake`) start and are not waited for.
   */
  async run(event: HookEvent, fields: Record<string, unknown>, names?: readonly string[], signal?: AbortSignal, call?: ToolCallInfo): Promise<HookAnswer[]> {
    const hooks = this.matching(event, names, call);
    if (hooks.length === 0) return [];
    const { cwd } = this.session;
    const mode = claudePermissionMode(this.options.permissionMode);
    const stdin = JSON.stringify({
      session_id: this.session.id,
      transcript_path: this.session.transcriptPath,
      cwd,
      ...(mode ? { permission_mode: mode } : {}),
      hook_event_name: event,
      ...fields,
    });
    const foreground = hooks.filter((hook) => !hook.background);
    for (const hook of hooks.filter((hook) => hook.background)) {
      // Not tied to the turn's signal: a background hook outlives the call that started it, up to its timeout.
      const running = this.runOne(event, hook, stdin, undefined, true).then((answer) => {
        if (hook.background === "rewake" && answer.block !== undefined) this.wake.push(`${event} hook \`${hook.command}\` (asyncRewake): ${answer.block}`);
      });
      if (hook.background === "rewake") {
        this.rewaking.add(running);
        void running.finally(() => this.rewaking.delete(running));
      }
    }
    return Promise.all(foreground.map((hook) => this.runOne(event, hook, stdin, signal)));
  }

  private async runOne(event: HookEvent, hook: CommandHook, stdin: string, signal?: AbortSignal, background = false): Promise<HookAnswer> {
    const { cwd } = this.session;
    const env = { ...this.options.env, CLAUDE_PROJECT_DIR: cwd, OMP_PROJECT_DIR: cwd };
    if (hook.pluginRoot) Object.assign(env, { CLAUDE_PLUGIN_ROOT: hook.pluginRoot, OMP_PLUGIN_ROOT: hook.pluginRoot });
    const ran = await runHookCommand(hook.command, { cwd, env, stdin, timeoutMs: hook.timeoutMs, signal, background });
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
    // Claude shows systemMessage to the user, not the model: a warning line or notice here.
    if (output.systemMessage?.trim()) this.options.warn(output.systemMessage.trim());
    const specific = output.hookSpecificOutput;
    if (specific?.additionalContext) answer.context = specific.additionalContext;
    if (output.decision === "block") answer.block = output.reason ?? `blocked by the ${event} hook \`${hook.command}\``;
    if (specific?.permissionDecision === "deny") answer.block = specific.permissionDecisionReason ?? output.reason ?? `denied by the ${event} hook \`${hook.command}\``;
    if (output.continue === false) answer.halt = output.stopReason ?? `stopped by the ${event} hook \`${hook.command}\``;
    return answer;
  }

  async beforeToolCall(call: ToolCallInfo, signal: AbortSignal): Promise<BeforeToolOutcome | undefined> {
    const { toolName, toolInput } = toClaude(call.toolName, call.input, this.session.cwd);
    const answers = await this.run("PreToolUse", { tool_name: toolName, tool_input: toolInput, tool_use_id: call.toolCallId }, matchNames(call.toolName), signal, call);
    if (answers.length === 0) return undefined;
    const stopped = answers.find((answer) => answer.block !== undefined || answer.halt !== undefined);
    // continue: false stops the run as well as this call, as in Claude Code.
    if (stopped) return { block: stopped.block ?? stopped.halt!, ...(stopped.halt === undefined ? {} : { halt: stopped.halt }) };
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
    const { toolName, toolInput } = toClaude(call.toolName, call.input, this.session.cwd);
    const base = { tool_name: toolName, tool_input: toolInput, tool_use_id: call.toolCallId };
    // A call that failed is PostToolUseFailure, with the error, as in Claude Code.
    const answers = result.isError
      ? await this.run("PostToolUseFailure", { ...base, error: resultText(result), is_interrupt: signal.aborted }, matchNames(call.toolName), signal, call)
      : await this.run("PostToolUse", { ...base, tool_response: { output: resultText(result), is_error: false, ...(result.details === undefined ? {} : { details: result.details }) } }, matchNames(call.toolName), signal, call);
    const notes = [...answers.flatMap((answer) => [answer.block ?? answer.halt, answer.context].filter((note): note is string => note !== undefined)), ...this.takeWake()];
    if (notes.length === 0) return undefined;
    const halt = answers.find((answer) => answer.halt !== undefined)?.halt;
    return { ...result, content: [...result.content, { type: "text", text: `${result.isError ? "PostToolUseFailure" : "PostToolUse"} hook feedback:\n${notes.join("\n")}` }], ...(halt === undefined ? {} : { halt }) };
  }

  async sessionStart(source: SessionStartSource): Promise<string[]> {
    // A subagent's first prompt is SubagentStart in Claude Code, never a SessionStart.
    const answers = this.session.subagent ? await this.run("SubagentStart", { agent_id: this.session.id }) : await this.run("SessionStart", { source }, [source]);
    return answers.flatMap((answer) => (answer.context === undefined ? [] : [answer.context]));
  }

  async promptExpansion(expansion: PromptExpansion): Promise<{ block?: string; context: string[] }> {
    const fields = { expansion_type: "slash_command", command_name: expansion.name, command_args: expansion.args, command_source: expansion.source, prompt: expansion.prompt };
    return promptOutcome(await this.run("UserPromptExpansion", fields, [expansion.name]), []);
  }

  async userPrompt(prompt: string): Promise<{ block?: string; context: string[] }> {
    return promptOutcome(await this.run("UserPromptSubmit", { prompt }), this.takeWake());
  }

  async stop(stopHookActive: boolean): Promise<string | undefined> {
    const answers = await this.run(this.session.subagent ? "SubagentStop" : "Stop", { stop_hook_active: stopHookActive });
    if (answers.some((answer) => answer.halt !== undefined)) return undefined;
    // asyncRewake: a background hook still running is waited for when the model would stop; its exit 2 wakes it.
    if (this.rewaking.size > 0) await Promise.all(this.rewaking);
    const reasons = [...answers.flatMap((answer) => (answer.block === undefined ? [] : [answer.block])), ...this.takeWake()];
    return reasons.length > 0 ? reasons.join("\n") : undefined;
  }

  async preCompact(trigger: "manual" | "auto"): Promise<void> {
    await this.run("PreCompact", { trigger, custom_instructions: "" }, [trigger]);
  }

  async postCompact(trigger: "manual" | "auto", summary: string): Promise<void> {
    await this.run("PostCompact", { trigger, compact_summary: summary }, [trigger]);
  }

  async stopFailure(error: string, kind?: FailureKind): Promise<void> {
    const type = (kind && CLAUDE_ERROR_TYPES[kind]) ?? "unknown";
    await this.run("StopFailure", { error: type, error_details: error }, [type]);
  }

  async notification(message: string): Promise<void> {
    await this.run("Notification", { message, notification_type: "permission_prompt" });
  }

  /** Claude's `hookSpecificOutput.decision: {behavior: allow|deny, message}`; exit 2 denies too. A deny wins. */
  async permissionRequest(toolName: string, input: Record<string, unknown>): Promise<{ allow: boolean; reason?: string } | undefined> {
    const claude = toClaude(toolName, input, this.session.cwd);
    const answers = await this.run("PermissionRequest", { tool_name: claude.toolName, tool_input: claude.toolInput }, matchNames(toolName), undefined, { toolName, toolCallId: "", input });
    const decisions = answers.flatMap((answer): { allow: boolean; reason?: string }[] => {
      if (answer.block !== undefined) return [{ allow: false, reason: answer.block }];
      const decision = answer.output?.hookSpecificOutput?.decision as { behavior?: unknown; message?: unknown } | undefined;
      if (decision?.behavior !== "allow" && decision?.behavior !== "deny") return [];
      return [{ allow: decision.behavior === "allow", ...(typeof decision.message === "string" ? { reason: decision.message } : {}) }];
    });
    return decisions.find((decision) => !decision.allow) ?? decisions[0];
  }

  async sessionEnd(reason: string): Promise<void> {
    await this.run("SessionEnd", { reason });
  }
}

/** The agent extension that runs these hooks, one instance per session. */
export function claudeHooks(options: ClaudeHooksOptions): ExtensionsFactory {
  return (session) => new SessionHooks(options, session);
}
