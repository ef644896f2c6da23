import type { Usage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";

/** How the agent's requests are named in the usage store (the gateway's rows name their client). */
export const AGENT_CLIENT = "agent";

/**
 * Records each model reply's tokens and cost in `<agent dir>/usage.db` for `omp usage` and
 * `omp stats`. The store opens on the first reply (bun:sqlite stays off the start-up path); a
 * store that cannot be written is given up on for the process, never failing a run over accounting.
 */
export function usageRecorder(env: NodeJS.ProcessEnv): (model: Model, usage: Usage) => void {
  let log: import("./usage-db.ts").UsageLog | null | undefined;
  return (model, usage) => {
    if (log === null || usage.totalTokens === 0) return;
    try {
      if (log === undefined) {
        const { UsageLog, agentUsageDbPath } = require("./usage-db.ts") as typeof import("./usage-db.ts");
        log = new UsageLog(agentUsageDbPath(env));
      }
      log.record(AGENT_CLIENT, model.provider, model.id, usage, false);
    } catch {
      log = null;
    }
  };
}
