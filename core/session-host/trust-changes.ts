import { displayPath } from "../paths.ts";
import type { Approver } from "../tools/approval.ts";
import { type PartChange, pinParts } from "../trust/content-pins.ts";

/** The changed parts as one text: each file's diff, bounded so an approval stays readable. */
const MAX_SHOWN = 16 * 1024;

export function describeChanges(changes: readonly PartChange[]): string {
  const text = changes.map((change) => change.diff).join("\n");
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN)}\n… (${text.length - MAX_SHOWN} more characters: \`omp trust\` shows all of it)\n`;
}

/**
 * rpc and ACP: the changes since the folder was trusted, as an approval request on the host's
 * stream once it is up. They were skipped at start; allowed, they are trusted from the next session on.
 */
export async function askTrustChanges(approver: Approver, cwd: string, changes: readonly PartChange[], env: NodeJS.ProcessEnv): Promise<boolean> {
  const files = changes.map((change) => displayPath(change.file));
  const decision = await approver({
    toolName: "trust",
    kind: "trust",
    effect: "exec",
    input: { folder: cwd, files, diff: describeChanges(changes) },
    summary: `${files.join(", ")} changed since you trusted ${displayPath(cwd)}; skipped this session. Trust the change (its hooks, servers and rules run from the next session on)?`,
  });
  if (decision.allow) pinParts(cwd, env);
  return decision.allow;
}
