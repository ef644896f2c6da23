import { z } from "zod";
import { HOOK_EVENTS } from "./events.ts";

export const HookEvent = z.enum(HOOK_EVENTS);
export type HookEvent = z.infer<typeof HookEvent>;

/**
 * One `type: command` hook. Loose: real files carry `shell`, `statusMessage` and other keys that
 * change nothing here.
 */
export const CommandHookSpec = z.looseObject({
  type: z.literal("command"),
  command: z.string().min(1),
  /** Seconds; Claude Code's default is 60. */
  timeout: z.number().positive().optional(),
  /** Runs in the background: the turn does not wait for it. */
  async: z.boolean().optional(),
  /** In the background, and an exit 2 brings its stderr to the model at its next step. */
  asyncRewake: z.boolean().optional(),
  /** A permission rule (`Bash(git *)`, `Edit(*.ts)`): the hook runs only for tool calls it matches. */
  if: z.string().optional(),
});

/** One matcher group of an event: a regex over tool names (or SessionStart sources) and its hooks. */
export const MatcherGroup = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(z.unknown()),
});

/** `hooks:` in config.yml, and the `hooks` key of a hooks.json: event → matcher groups. */
export const HooksBlock = z.record(z.string(), z.array(z.unknown()));


/** Claude Code's JSON answer on a hook's stdout; anything else on stdout is plain output. */
export const HookOutput = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});
export type HookOutput = z.infer<typeof HookOutput>;
