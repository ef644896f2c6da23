import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The files of this folder that declare no tool: the index and this module. */
const NOT_DECLARATIONS = ["index.ts", "modules.ts"];

/** The files of a declarations folder whose exports may declare tools (helpers among them export none). */
export function declarationFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".ts") && !NOT_DECLARATIONS.includes(file))
    .sort();
}

/**
 * This folder's modules, so that a tool is added by adding its declaration's file and nothing else.
 * Run from source they are found here; a bundle has no folder to read, so omp's build puts static
 * imports of the same files in this module's place (embed/declarations-plugin.ts).
 */
export const DECLARATION_MODULES: readonly Record<string, unknown>[] = declarationModules(import.meta.dir);

/** The modules of a declarations folder, imported in file-name order. */
export function declarationModules(dir: string): Record<string, unknown>[] {
  return declarationFiles(dir).map((file) => import.meta.require(join(dir, file)));
}
