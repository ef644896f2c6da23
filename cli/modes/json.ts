import { type SessionHost, isAgentEvent } from "../../core/session-host/host.ts";
import type { ImageContent, TextContent } from "../../core/ai/messages.ts";
import { stdout, writeLine } from "./output.ts";
import { promptUntilDone } from "./print.ts";

/**
 * `--mode json`: one JSON object per line on stdout — the session header first, then every agent
 * event; `agent_end` carries the run's usage. Scripts read it with any NDJSON reader.
 */
export async function runJsonMode(host: SessionHost, prompt: (TextContent | ImageContent)[], header: Record<string, unknown>, say: (line: string) => void): Promise<number> {
  writeLine(header);
  host.subscribe((event) => isAgentEvent(event) && writeLine(event));
  try {
    return await promptUntilDone(host, prompt, say);
  } finally {
    await stdout.flush();
  }
}
