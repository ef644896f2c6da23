import type { Agent } from "../../core/agent/agent.ts";
import type { ImageContent, TextContent } from "../../core/ai/messages.ts";
import { stdout, writeLine } from "./output.ts";
import { promptUntilDone } from "./print.ts";

/**
 * `--mode json`: one JSON object per line on stdout — the session header first, then every agent
 * event; `agent_end` carries the run's usage. Scripts read it with any NDJSON reader.
 */
export async function runJsonMode(agent: Agent, prompt: (TextContent | ImageContent)[], header: Record<string, unknown>): Promise<number> {
  writeLine(header);
  agent.subscribe(writeLine);
  try {
    return await promptUntilDone(agent, prompt);
  } finally {
    await stdout.flush();
  }
}
