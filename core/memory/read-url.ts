import { existsSync } from "node:fs";
import { Settings } from "../config/settings-schema.ts";
import { errorResult, textResult } from "../tools/format.ts";
import type { ReadRange } from "../tools/internal-urls.ts";
import type { ReadDetails } from "../tools/read-details.ts";
import { readTextOf } from "../tools/read.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { bankScope, memoryDbPath, memoryEnabled, memoryOff } from "./banks.ts";
import { memoryLine } from "./format.ts";
import { memoryBlockOf } from "./session-block.ts";
import { MAX_BANK_MEMORIES, MemoryStore } from "./store.ts";

const NONE = "No memories are stored for this project yet.";

/**
 * `memory://root` (the newest memories, as a first prompt that matches none gets them) and
 * `memory://root/MEMORY.md` (every memory of the project's banks, newest first), the original's
 * memory artifacts, from the local store.
 */
export async function readMemoryUrl(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const path = url.replace(/^memory:\/\//i, "").replace(/^\/+|\/+$/g, "");
  const settings = context.settings ?? Settings.parse({});
  if (!memoryEnabled(settings)) return errorResult(memoryOff(settings));
  if (path !== "" && path !== "root" && path.toLowerCase() !== "root/memory.md") {
    return errorResult(`There is no memory://${path}. Readable: memory://root (the newest memories) and memory://root/MEMORY.md (every memory of this project).`);
  }
  const dbPath = memoryDbPath(settings);
  // Reading makes no store.
  if (!existsSync(dbPath)) return textResult(NONE);
  return MemoryStore.using(dbPath, (store) => {
    if (path.toLowerCase() === "root/memory.md") {
      const banks = bankScope(settings, context.cwd).recall;
      const all = store.list(banks, MAX_BANK_MEMORIES * banks.length);
      if (all.length === 0) return textResult(NONE);
      return readTextOf(`memory://${path}`, `# Memory\n\n${all.map(memoryLine).join("\n")}\n`, range);
    }
    return textResult(memoryBlockOf(store, settings, context.cwd) ?? NONE);
  });
}
