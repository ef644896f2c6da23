import { displayPath } from "../../paths.ts";
import type { BeforeToolOutcome, ToolCallInfo, ToolHookPoint } from "../../tools/hook-points.ts";
import { type PermissionRule, bashAllowed, ruleMatches, ruleNamesTool } from "../../permissions/rules.ts";

/**
 * Settings rules as a tool hook point, run after every other hook (so it judges the input a hook
 * rewrote): a deny rule blocks the call in every approval mode, yolo included, as Claude Code
 * refuses them even when permissions are bypassed; an ask rule asks whatever the mode; an allow
 * rule settles the approval without asking. Deny, then ask, then allow: the first kind that
 * matches decides.
 */
export function permissionRules(rules: readonly PermissionRule[], cwd: string): ToolHookPoint {
  const where = (rule: PermissionRule) => `${rule.text} in ${displayPath(rule.file)}`;
  return {
    async beforeToolCall(call: ToolCallInfo): Promise<BeforeToolOutcome | undefined> {
      return decide(rules, call, cwd, where);
    },
  };
}

function decide(rules: readonly PermissionRule[], call: ToolCallInfo, cwd: string, where: (rule: PermissionRule) => string): BeforeToolOutcome | undefined {
  const matching = (behavior: PermissionRule["behavior"]) => rules.filter((rule) => rule.behavior === behavior && ruleMatches(rule, call.toolName, call.input, cwd));
  const deny = matching("deny")[0];
  if (deny) return { block: `${call.toolName} was not run: the permission rule ${where(deny)} denies it. Do not try to get around it; tell the user if the task needs it.` };
  const ask = matching("ask")[0];
  if (ask) return { decision: "ask", reason: `the permission rule ${where(ask)}` };
  const allow = rules.filter((rule) => rule.behavior === "allow" && ruleNamesTool(rule.tool, call.toolName));
  if (allow.length === 0) return undefined;
  const allowed =
    call.toolName === "bash"
      ? bashAllowed(
          allow.map((rule) => (rule.specifier === undefined ? "Bash" : `Bash(${rule.specifier})`)),
          typeof call.input.command === "string" ? call.input.command : "",
        )
      : allow.some((rule) => ruleMatches(rule, call.toolName, call.input, cwd));
  return allowed ? { decision: "allow" } : undefined;
}
