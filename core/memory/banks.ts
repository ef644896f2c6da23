import { basename, join, resolve } from "node:path";
import type { Settings } from "../config/settings-schema.ts";
import { agentDir, expandHome } from "../paths.ts";

/** The bank every project shares (the original's unset `mnemopi.bank`). */
export const GLOBAL_BANK = "default";

/** Where memories are kept: `mnemopi.dbPath`, else the original's place under the agent dir. */
export function memoryDbPath(settings: Pick<Settings, "mnemopi">, env: NodeJS.ProcessEnv = process.env): string {
  const configured = settings.mnemopi.dbPath;
  return configured ? resolve(expandHome(configured)) : join(agentDir(env), "memories", "mnemopi", "mnemopi.db");
}

/** The project's bank, as the original derives it: the working directory's name plus a stable hash of its absolute path. */
export function projectBank(cwd: string): string {
  const path = resolve(cwd);
  const name = basename(path).replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 48) || "root";
  return `${name}-${new Bun.CryptoHasher("sha256").update(path).digest("hex").slice(0, 12)}`;
}

export interface BankScope {
  /** Where retain writes. */
  retain: string;
  /** What recall, reflect and a first prompt's memories come from, the retain bank first. */
  recall: string[];
}

/** `mnemopi.scoping` for a working directory. */
export function bankScope(settings: Pick<Settings, "mnemopi">, cwd: string): BankScope {
  const scoping = settings.mnemopi.scoping;
  if (scoping === "global") return { retain: GLOBAL_BANK, recall: [GLOBAL_BANK] };
  const project = projectBank(cwd);
  return { retain: project, recall: scoping === "per-project-tagged" ? [project, GLOBAL_BANK] : [project] };
}

/** Whether memory is on: the local backend under either of its names. */
export function memoryEnabled(settings: Pick<Settings, "memory">): boolean {
  return settings.memory.backend === "local" || settings.memory.backend === "mnemopi";
}

/** What the tools, memory:// and /memory say while memory is off. */
export function memoryOff(settings: Pick<Settings, "memory">): string {
  return `Memory is off (memory.backend: ${settings.memory.backend}); memory.backend: local turns it on.`;
}

/** Whether a new session's first prompt brings memories along: memory on, `mnemopi.autoRecall` on and room for some. */
export function wantsMemoryBlock(settings: Pick<Settings, "memory" | "mnemopi">): boolean {
  return memoryEnabled(settings) && settings.mnemopi.autoRecall && settings.mnemopi.injectionTokenLimit > 0;
}
