import { displayPath } from "../../paths.ts";
import { parseRule } from "../../permissions/rules.ts";
import { HOOK_EVENTS } from "./events.ts";
import { CommandHookSpec, type HookEvent, HooksBlock, MatcherGroup } from "./schema.ts";

import type { HookSource } from "./lazy.ts";
export type { HookSource };

/** One runnable hook. */
export interface CommandHook {
  event: HookEvent;
  /** As written; "" when it matches everything. */
  matcher: string;
  /** undefined: matches everything. */
  pattern?: RegExp;
  command: string;
  timeoutMs: number;
  file: string;
  pluginRoot?: string;
  /** `async`/`asyncRewake`: run in the background; with rewake, an exit 2 reaches the model later. */
  background?: "async" | "rewake";
  /** `if`: a permission rule the tool call must match. */
  condition?: { text: string; tool: string; specifier?: string };
}

export interface LoadedHooks {
  hooks: CommandHook[];
  /** One line per problem, naming the file; everything else still loaded. */
  problems: string[];
}

const DEFAULT_TIMEOUT_S = 60;
const EVENTS = new Set<string>(HOOK_EVENTS);

/**
 * Claude treats `*`, "" and a missing matcher as "all"; anything else is a regex over the whole
 * name, so `Edit|Write` matches exactly those two and `mcp__.*` every MCP tool.
 */
function matcherPattern(matcher: string): RegExp | undefined {
  if (matcher === "" || matcher === "*") return undefined;
  return new RegExp(`^(?:${matcher})$`);
}

/** Every hook of the sources, in order; a bad event, group or hook is reported and skipped. */
export function loadHooks(sources: readonly HookSource[]): LoadedHooks {
  const hooks: CommandHook[] = [];
  const problems: string[] = [];
  for (const source of sources) {
    const where = displayPath(source.file);
    const block = HooksBlock.safeParse(source.block);
    if (!block.success) {
      problems.push(`${where}: hooks must map event names to lists of matcher groups; ignored`);
      continue;
    }
    for (const [event, groups] of Object.entries(block.data)) {
      if (!EVENTS.has(event)) {
        problems.push(`${where}: unknown hook event ${JSON.stringify(event)} (known: ${HOOK_EVENTS.join(", ")}); ignored`);
        continue;
      }
      for (const [index, raw] of groups.entries()) {
        const at = `${where}: hooks.${event}[${index}]`;
        const group = MatcherGroup.safeParse(raw);
        if (!group.success) {
          problems.push(`${at} needs a hooks list (and an optional matcher string); ignored`);
          continue;
        }
        const matcher = group.data.matcher ?? "";
        let pattern: RegExp | undefined;
        try {
          pattern = matcherPattern(matcher);
        } catch (error) {
          problems.push(`${at}: matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message}); ignored`);
          continue;
        }
        for (const [n, spec] of group.data.hooks.entries()) {
          const hook = CommandHookSpec.safeParse(spec);
          if (!hook.success) {
            const type = (spec as { type?: unknown } | null)?.type;
            problems.push(
              type !== undefined && type !== "command"
                ? `${at}.hooks[${n}]: type ${JSON.stringify(type)} is not supported (only type: command); ignored`
                : `${at}.hooks[${n}] needs type: command and a command string; ignored`,
            );
            continue;
          }
          const condition = hook.data.if === undefined ? undefined : parseRule(hook.data.if);
          if (hook.data.if !== undefined && !condition) {
            problems.push(`${at}.hooks[${n}]: if ${JSON.stringify(hook.data.if)} is not a permission rule (Tool or Tool(pattern)); ignored`);
            continue;
          }
          hooks.push({
            event: event as HookEvent,
            matcher,
            ...(pattern ? { pattern } : {}),
            command: hook.data.command,
            timeoutMs: (hook.data.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
            file: source.file,
            ...(source.pluginRoot ? { pluginRoot: source.pluginRoot } : {}),
            ...(hook.data.asyncRewake ? { background: "rewake" as const } : hook.data.async ? { background: "async" as const } : {}),
            ...(condition ? { condition: { text: hook.data.if!, ...condition } } : {}),
          });
        }
      }
    }
  }
  return { hooks, problems };
}
