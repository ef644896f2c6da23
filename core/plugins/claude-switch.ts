import { z } from "zod";
import { claudeOverridesFile } from "./paths.ts";
import { readState, writeState } from "./state.ts";

/** omp's switch for Claude Code's installs: the ids turned off for omp, Claude Code unaffected. */
export const ClaudeOverridesSchema = z.object({ version: z.literal(1), disabled: z.array(z.string()) });

export function setClaudeDisabled(id: string, disabled: boolean): void {
  const state = readState(claudeOverridesFile(), ClaudeOverridesSchema, () => ({ version: 1 as const, disabled: [] }));
  const ids = new Set(state.disabled);
  if (disabled) ids.add(id);
  else ids.delete(id);
  writeState(claudeOverridesFile(), { version: 1, disabled: [...ids].sort() });
}
