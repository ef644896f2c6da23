import type { ReadRange } from "../tools/internal-urls.ts";
import type { ReadDetails } from "../tools/read-details.ts";
import { errorResult } from "../tools/format.ts";
import { readTextOf } from "../tools/read.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { discoverRules } from "./discover.ts";
import { bucketRules, readableRules } from "./rulebook.ts";
import { DEFAULT_TTSR_SETTINGS } from "./ttsr.ts";

/**
 * `rule://<name>`: the text of a rule the system prompt lists or always applies, as the original
 * resolves it (exact name; stream-only rules are not readable: the model gets them when they fire).
 */
export async function readRule(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const name = decodeURIComponent(url.replace(/^rule:\/\//i, "").replace(/^\/+|\/+$/g, ""));
  const rules = readableRules(bucketRules(discoverRules(context.cwd), context.settings?.ttsr ?? DEFAULT_TTSR_SETTINGS));
  const rule = rules.find((candidate) => candidate.name === name);
  if (rule) return readTextOf(`rule://${rule.name}`, rule.content, range);
  const known = rules.map((candidate) => `rule://${candidate.name}`).join(", ");
  return errorResult(name === "" ? (known ? `Rules: ${known}` : "No rules are available in this session.") : `There is no rule://${name}.${known ? ` Available: ${known}.` : " No rules are available in this session."}`);
}
