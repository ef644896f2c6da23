import type { Usage } from "../ai/messages.ts";
import type { Model } from "../ai/model.ts";
import { appendUsage, usageJournalPath } from "./journal.ts";

/** How the agent's requests are named in the usage store (the gateway's rows name their client). */
export const AGENT_CLIENT = "agent";

/**
 * Records each model reply's tokens and cost for `omp usage` and `omp stats`: appended to the
 * usage journal (journal.ts), which the store folds in when it is next opened, so a run never
 * loads bun:sqlite unless the journal has grown big. A journal that cannot be written is given up
 * on for the process, never failing a run over accounting.
 */
export function usageRecorder(env: NodeJS.ProcessEnv): (model: Model, usage: Usage) => void {
  let broken = false;
  return (model, usage) => {
    if (broken || usage.totalTokens === 0) return;
    try {
      const day = new Date().toISOString().slice(0, 10);
      if (!appendUsage(usageJournalPath(env), { day, client: AGENT_CLIENT, provider: model.provider, model: model.id, failed: false, usage })) return;
      const { openAgentUsage } = require("./usage-db.ts") as typeof import("./usage-db.ts");
      openAgentUsage(env)?.close();
    } catch {
      broken = true;
    }
  };
}
