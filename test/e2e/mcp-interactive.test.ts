// MCP in the interactive mode: the prompt is up while servers start; a failing server is one
// warning in the transcript; /mcp shows each server's state; server prompts are slash commands.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { modelRequests, userTextsOf } from "../support/agent-harness.ts";
import { edgeServer, everythingServer, writeUserMcp } from "../support/mcp/fixtures.ts";
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

    // On a busy machine the edge server may still be starting: ask again until it is up.
    let status = "";
    for (let attempt = 0; attempt < 20 && !status.includes("edge (stdio): ready, 1 tool"); attempt++) {
      tty.type("/mcp");
      tty.press("Enter");
      status = await tty.waitFor("stuck (stdio): failed: did not start within 2 s");
      await Bun.sleep(1000);
      status = tty.screen();
    }
    expect(status).toContain("edge (stdio): ready, 1 tool");

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

  test("server-everything's prompts complete after / with their arguments, run with them, fail naming a missing one, and /extensions lists them", async () => {
    const home = tempDir("omp-tty-home-");
    writeUserMcp(home, { everything: everythingServer() });
    const s = await ready({ home, cols: 140, script: [{ text: "sunny in Lima" }] });
    const { tty } = s;
    // The servers start after the first frame: type again until the completion list has the prompts.
    let list = "";
    for (let attempt = 0; attempt < 30 && !list.includes("/mcp__everything__args-prompt <city> [state]"); attempt++) {
      tty.type("/mcp__everything__ar");
      await Bun.sleep(500);
      list = tty.screen();
      tty.press("C-u");
      await Bun.sleep(200);
    }
    expect(list).toContain("/mcp__everything__args-prompt <city> [state]");
    expect(list).toContain("A prompt with two arguments, one required and one optional");

    tty.type("/mcp__everything__args-prompt");
    tty.press("Enter");
    await tty.waitFor("missing the required argument city. Its arguments: <city> [state]");

    tty.type("/mcp__everything__args-prompt Lima");
    tty.press("Enter");
    await tty.waitFor("sunny in Lima");
    expect(userTextsOf("anthropic-messages", modelRequests(s.standin)[0]!.body)).toEqual(["What's weather in Lima?"]);

    tty.type("/extensions");
    tty.press("Enter");
    const shown = await tty.waitFor(/\/mcp__everything__completable-prompt +user/);
    expect(shown).toMatch(/\/mcp__everything__args-prompt +user +~\/\.omp\/agent\/mcp\.json → prompt "args-prompt" of MCP server "everything"/);
  });
});
