import { z } from "zod";
import type { Mapping } from "../../../core/config/config-file.ts";
import { configError } from "../../../core/config/config-error.ts";
import { validateConfig } from "../../../core/config/validate-config.ts";
import { parseYamlMapping } from "../../../core/config/yaml-file.ts";
import { ACTION_IDS, isAction, parseChord } from "./keybindings.ts";

/**
 * keybindings.yml's slow path: YAML and the schema, needed only when the file changed since the
 * config cache last saw it. An action id omp does not know (the original omp's file has many) is
 * kept here and only warned about by loadKeymap, so the known ones still apply.
 */
const Chords = z.union([z.string(), z.array(z.string())]);
export const KeybindingsFile = z.object(Object.fromEntries(ACTION_IDS.map((action) => [action, Chords.optional()]))).catchall(z.unknown());

/** The file's values once every known action's chord parses and no chord is given to two actions. */
export function keybindingsFileValues(text: string, path: string): Mapping {
  const values = parseYamlMapping(text, path);
  validateConfig(KeybindingsFile, values, path);
  const problems: string[] = [];
  const owner = new Map<string, string>();
  for (const [action, chords] of Object.entries(values)) {
    if (!isAction(action)) continue;
    for (const chord of typeof chords === "string" ? [chords] : (chords as string[])) {
      const parsed = parseChord(chord);
      const other = "id" in parsed ? owner.get(parsed.id) : undefined;
      if ("error" in parsed) problems.push(`${action}: ${parsed.error}`);
      else if (other !== undefined && other !== action) problems.push(`${action}: "${chord}" is also bound to ${other}`);
      else owner.set(parsed.id, action);
    }
  }
  if (problems.length > 0) throw configError(path, problems);
  return values;
}
