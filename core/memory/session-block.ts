import { existsSync } from "node:fs";
import type { Settings } from "../config/settings-schema.ts";
import { bankScope, memoryDbPath } from "./banks.ts";
import { memoryBlock } from "./format.ts";
import type { Memory, MemoryStore } from "./store.ts";

/** A token is about four characters of English. */
const CHARS_PER_TOKEN = 4;

/**
 * The `<memories>` block for `query` (a session's first prompt): the memories of the banks `cwd`
 * recalls from that match it best, then the newest, `mnemopi.recallLimit` in all and within
 * `mnemopi.injectionTokenLimit`. Without a query, the newest alone (memory://root).
 */
export function memoryBlockOf(store: MemoryStore, settings: Pick<Settings, "mnemopi">, cwd: string, query = ""): string | undefined {
  const banks = bankScope(settings, cwd).recall;
  const limit = settings.mnemopi.recallLimit;
  const chosen = new Map<number, Memory>();
  for (const memory of [...store.search(banks, query, limit), ...store.list(banks, limit)]) {
    if (chosen.size < limit) chosen.set(memory.id, memory);
  }
  return memoryBlock([...chosen.values()], settings.mnemopi.injectionTokenLimit * CHARS_PER_TOKEN);
}

/**
 * The block a new session's first prompt carries (`mnemopi.autoRecall`). Undefined when there are
 * no memories (no store is made for asking, and the store's code with bun:sqlite is not loaded:
 * ~0.5 MiB of a run's peak), or when the store cannot be read: recall then says why, where the
 * model asks.
 */
export async function sessionMemoryBlock(settings: Pick<Settings, "mnemopi">, cwd: string, env: NodeJS.ProcessEnv, query: string): Promise<string | undefined> {
  const path = memoryDbPath(settings, env);
  if (!existsSync(path)) return undefined;
  const { MemoryStore } = await import("./store.ts");
  try {
    return MemoryStore.using(path, (store) => memoryBlockOf(store, settings, cwd, query));
  } catch {
    return undefined;
  }
}
