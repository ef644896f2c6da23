import { readdirSync, readFileSync, statSync } from "node:fs";
import { isDirEntry } from "../../fs/dir-entry.ts";
import { join } from "node:path";
import { ConfigCache } from "../../config/config-cache.ts";
import type { Mapping } from "../../config/config-file.ts";
import { displayPath } from "../../paths.ts";
import type { AgentDefinition } from "./builtin.ts";

/** YAML and zod, loaded only for an agent file the cache has not seen as it is now. */
const slowPath = () => require("./definitions.ts") as typeof import("./definitions.ts");

/** How deep sub-folders of agents/ are searched (Claude Code loads agents in sub-folders). */
const MAX_DEPTH = 4;

/**
 * The agent files of one entry: a `.md` file itself (plugin.json may list files), or every `*.md`
 * in a folder and its sub-folders, sorted by path; README files are documentation, not agents.
 */
function agentFiles(path: string, depth = 0): string[] {
  if (depth === 0 && statSync(path).isFile()) return path.endsWith(".md") ? [path] : [];
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".")) continue;
    const full = join(path, entry.name);
    if (isDirEntry(path, entry)) {
      if (depth < MAX_DEPTH) found.push(...agentFiles(full, depth + 1));
    } else if (entry.name.endsWith(".md") && !/^readme\.md$/i.test(entry.name)) found.push(full);
  }
  return found;
}

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
      let files: string[];
      try {
        files = agentFiles(dir);
      } catch (error) {
        problems.push(`${displayPath(dir)}: not readable (${(error as Error).message}); its agents are skipped`);
        continue;
      }
      for (const path of files) {
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
