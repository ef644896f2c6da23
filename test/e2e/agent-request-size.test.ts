// Request economy: the first request a default session sends (system prompt, every tool offered by
// default, the user's words) stays small in every wire format. The brief's line: under 24 KB with
// every new tool on; rarely needed tools go through tool search instead of every request.
import { describe, expect, test } from "bun:test";
import { agentTestFile, modelRequests, providerTable, runAgent, workspace } from "../support/agent-harness.ts";

const standin = await agentTestFile();
const LIMIT = 24 * 1024;

describe("the first request's size", () => {
  test.each(providerTable())("%s: a default session's first request is under 24 KB", async (_api, provider) => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    const before = modelRequests(standin).length;
    const result = await runAgent(["-p", "--model", provider.model, "hi"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    const first = modelRequests(standin)[before]!;
    const bytes = Buffer.byteLength(JSON.stringify(first.body));
    // A failure names the size, so whoever grew it sees by how much.
    expect({ bytes, underLimit: bytes < LIMIT }).toEqual({ bytes, underLimit: true });
    // Not an empty request that passes by accident: the default tools are in it.
    expect(JSON.stringify(first.body)).toContain("bash");
  });
});
