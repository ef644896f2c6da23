// Imported with { type: "macro" }: runs when omp is bundled, so the compiled binary carries the
// built-in tools' JSON Schemas instead of converting zod schemas at every start.
import type { ToolSpec } from "../ai/stream.ts";
import { builtinTools, toToolSpec } from "../tools/registry.ts";

export function builtinToolSpecs(): Record<string, ToolSpec> {
  return Object.fromEntries(builtinTools().map((tool) => [tool.name, toToolSpec(tool)]));
}
