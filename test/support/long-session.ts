// A long session file for the tree's tests and benchmark: `turns` user turns on one line of work,
// with a one-turn side branch every `branchEvery` turns. Written in one go, in the writer's line
// format (SessionWriter would fsync every turn: seconds for a fixture).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AssistantMessage, type Message, emptyUsage } from "../../core/ai/messages.ts";
import { sessionFileName } from "../../core/session/paths.ts";
import { SESSION_VERSION } from "../../core/session/version.ts";

export interface LongSession {
  path: string;
  id: string;
  /** User turns in the file, side branches included. */
  turns: number;
  /** Side branches added (each one turn long). */
  sideBranches: number;
}

function answer(text: string, timestamp: number): AssistantMessage {
  return { role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: emptyUsage(), stopReason: "stop", timestamp };
}

export function writeLongSession(options: { sessionDir: string; cwd: string; turns: number; branchEvery?: number }): LongSession {
  const start = Date.now() - options.turns * 60_000;
  const id = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  const lines = [JSON.stringify({ type: "session", version: SESSION_VERSION, id, timestamp: new Date(start).toISOString(), cwd: options.cwd })];
  let serial = 0;
  const add = (parentId: string | null, message: Message, at: number) => {
    const entryId = (++serial).toString(16).padStart(8, "0");
    lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: new Date(at).toISOString(), message }));
    return entryId;
  };
  let leaf: string | null = null;
  let sideBranches = 0;
  for (let n = 1; n <= options.turns; n++) {
    const at = start + n * 60_000;
    const asked = add(leaf, { role: "user", content: `turn ${n}: please look at module ${n % 37} and tell me what it does`, timestamp: at }, at);
    leaf = add(asked, answer(`answer ${n}: module ${n % 37} parses and renders things, in some detail.`, at + 1000), at + 1000);
    if (options.branchEvery && n % options.branchEvery === 0 && n < options.turns) {
      const side = add(leaf, { role: "user", content: `side ${n}: try another way`, timestamp: at + 2000 }, at + 2000);
      add(side, answer(`side answer ${n}`, at + 3000), at + 3000);
      sideBranches++;
    }
  }
  mkdirSync(options.sessionDir, { recursive: true });
  const path = join(options.sessionDir, sessionFileName(new Date(start), id));
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
  return { path, id, turns: options.turns + sideBranches, sideBranches };
}
