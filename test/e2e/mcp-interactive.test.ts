// MCP in the interactive mode: the prompt is up while servers start; a failing server is one
// warning in the transcript; /mcp shows each server's state; server prompts are slash commands.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { modelRequests, userTextsOf } from "../support/agent-harness.ts";
import { edgeServer, writeUserMcp } from "../support/mcp/fixtures.ts";
import { tempDir } from "../support/omp.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);

const ready = readySessions();

describe("MCP in the interactive mode", () => {
  test("a hanging server warns once; /mcp lists states; /mcp__server__prompt sends the prompt's text", async () => {
    const home = tempDir("omp-tty-home-");
    writeUserMcp(home, { edge: edgeServer("prompts"), stuck: edgeServer("hang", { startTimeout: 2000 }) });
    const s = await ready({ home, script: [{ text: "reviewed it" }] });
    const { tty } = s;
    await tty.waitFor('MCP server "stuck" failed: did not start within 2 s');

    tty.type("/mcp");
    tty.press("Enter");
    const status = await tty.waitFor("edge (stdio): ready, 1 tool");
    expect(status).toContain("stuck (stdio): failed: did not start within 2 s");

    tty.type("/mcp disable edge");
    tty.press("Enter");
    await tty.waitFor("edge: disabled for this session.");
    tty.type("/mcp");
    tty.press("Enter");
    await tty.waitFor("ready, 1 tool — disabled for this session");

    tty.type("/mcp__edge__review src/a.ts security");
    tty.press("Enter");
    await tty.waitFor("reviewed it");
    const requests = modelRequests(s.standin);
    expect(userTextsOf("anthropic-messages", requests[0]!.body)).toEqual(["Please review src/a.ts focusing on security."]);
  });
});
