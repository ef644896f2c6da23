import type { Settings } from "../config/settings-schema.ts";
import { bankScope, memoryDbPath } from "./banks.ts";
import { memoryBlock } from "./format.ts";
import { MemoryStore } from "./store.ts";

/** A token is about four characters of English. */
const CHARS_PER_TOKEN = 4;

/** The newest memories of the banks `cwd` recalls from, within `mnemopi.injectionTokenLimit`, as the `<memories>` block. */
export function memoryBlockOf(store: MemoryStore, settings: Pick<Settings, "mnemopi">, cwd: string): string | undefined {
  return memoryBlock(store.list(bankScope(settings, cwd).recall, settings.mnemopi.recallLimit), settings.mnemopi.injectionTokenLimit * CHARS_PER_TOKEN);
}

/**
 * The `<memories>` block of a session's system prompt (`mnemopi.autoRecall`). Undefined when there
 * are no memories, or when the store cannot be read (recall then says why, where the model asks).
 */
export function sessionMemoryBlock(settings: Pick<Settings, "mnemopi">, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return MemoryStore.using(memoryDbPath(settings, env), (store) => memoryBlockOf(store, settings, cwd));
  } catch {
    return undefined;
  }
}
