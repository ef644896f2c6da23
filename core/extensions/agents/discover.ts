import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigCache } from "../../config/config-cache.ts";
import type { Mapping } from "../../config/config-file.ts";
import { displayPath } from "../../paths.ts";
import type { AgentDefinition } from "./builtin.ts";

/** YAML and zod, loaded only for an agent file the cache has not seen as it is now. */
const slowPath = () => require("./definitions.ts") as typeof import("./definitions.ts");

/**
 * Every `*.md` of the dirs, in order; a later definition of a name replaces an earlier one. A
 * file unchanged since it last parsed comes from the config cache, so fifty agent files cost a
 * few reads at start-up, not YAML and zod.
 */
export function loadAgentDefinitions(dirs: readonly string[], env: NodeJS.ProcessEnv): { agents: AgentDefinition[]; problems: string[] } {
  const byName = new Map<string, AgentDefinition>();
  const problems: string[] = [];
  const cache = ConfigCache.open("agents", env);
  try {
    for (const dir of dirs) {
      let names: string[];
      try {
        names = readdirSync(dir).filter((name) => name.endsWith(".md")).sort();
      } catch (error) {
        problems.push(`${displayPath(dir)}: not readable (${(error as Error).message}); its agents are skipped`);
        continue;
      }
      for (const name of names) {
        const path = join(dir, name);
        try {
          const definition = cache.values(path, readFileSync(path), (text) => {
            const parsed = slowPath().parseAgentFile(path, text);
            if ("problem" in parsed) throw new Error(parsed.problem);
            return parsed as unknown as Mapping;
          }) as unknown as AgentDefinition;
          byName.set(definition.name, definition);
        } catch (error) {
          problems.push((error as Error).message);
        }
      }
    }
  } finally {
    cache.save();
  }
  return { agents: [...byName.values()], problems };
}
