// `omp mcp add/add-json/list/get/remove`: the `claude mcp` syntax, against real servers.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EDGE_SERVER, EVERYTHING, trustFolder } from "../support/mcp/fixtures.ts";
import { runOmp, tempDir } from "../support/omp.ts";

setDefaultTimeout(60_000);

describe("omp mcp", () => {
  test("add, add-json, list, get, remove round trip; the user file is private, the project file is .mcp.json", async () => {
    const home = tempDir("omp-mcp-cli-home-");
    const project = tempDir("omp-mcp-cli-proj-");
    const omp = (...args: string[]) => runOmp(["mcp", ...args], { home, cwd: project });

    expect((await omp("add", "everything", "--", "node", EVERYTHING, "stdio")).code).toBe(0);
    expect((await omp("add", "-s", "project", "-e", "GREETING=hi", "edge", "--", process.execPath, EDGE_SERVER, "basic")).code).toBe(0);
    expect((await omp("add", "--transport", "http", "web", "http://127.0.0.1:9/mcp", "-H", "Authorization: Bearer abc")).code).toBe(0);
    expect((await omp("add-json", "broken", '{"command":"omp-no-such-command"}')).code).toBe(0);

    const userFile = join(home, ".omp", "agent", "mcp.json");
    expect(statSync(userFile).mode & 0o777).toBe(0o600);
    const user = JSON.parse(readFileSync(userFile, "utf8"));
    expect(user.mcpServers.everything).toEqual({ command: "node", args: [EVERYTHING, "stdio"] });
    expect(user.mcpServers.web).toEqual({ type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer abc" } });
    const projectFile = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8"));
    expect(projectFile.mcpServers.edge).toEqual({ command: process.execPath, args: [EDGE_SERVER, "basic"], env: { GREETING: "hi" } });

    const duplicate = await omp("add", "everything", "--", "node");
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('MCP server "everything" already exists');

    // Untrusted: the project server is reported, not run.
    let list = await omp("list");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^everything: node .* - ✓ connected, \d+ tools$/m);
    expect(list.stdout).toMatch(/^web: http:\/\/127\.0\.0\.1:9\/mcp \(HTTP\) - ✗ failed: /m);
    expect(list.stdout).toContain('broken: omp-no-such-command - ✗ failed: cannot run "omp-no-such-command": not found');
    expect(list.stdout).toContain(".mcp.json were skipped");
    expect(list.stdout).not.toMatch(/^edge:/m);

    trustFolder(home, project);
    list = await omp("list");
    expect(list.stdout).toMatch(/^edge: .* - ✓ connected, 6 tools$/m);

    const get = await omp("get", "edge");
    expect(get.code).toBe(0);
    expect(get.stdout).toContain("Status: ✓ connected, 6 tools");
    expect(get.stdout).toContain("Env: GREETING=…");
    expect(get.stdout).toContain("Tools: look, touch, fail, picture, slow, env");
    const json = JSON.parse((await omp("get", "everything", "--json")).stdout);
    expect(json.status).toBe("ready");
    expect(json.tools).toContain("echo");

    expect((await omp("remove", "web")).code).toBe(0);
    expect((await omp("remove", "edge")).stdout).toContain(".mcp.json");
    expect(JSON.parse(readFileSync(userFile, "utf8")).mcpServers.web).toBeUndefined();
    expect(JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")).mcpServers).toEqual({});
    const missing = await omp("remove", "web");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no MCP server named "web"');
  });

  test("bad input is a usage error naming the problem", async () => {
    const home = tempDir("omp-mcp-cli-home-");
    const omp = (...args: string[]) => runOmp(["mcp", ...args], { home });
    const badName = await omp("add", "bad name", "--", "x");
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("the name must be 1 to 64 of");
    const badJson = await omp("add-json", "x", "{nope");
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("not valid JSON: line 1, column 2: expected a property name in double quotes");
    // A wrong entry in the file is said in omp's words, not the validator's.
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "mcp.json"), JSON.stringify({ mcpServers: { y: { command: "node", args: "a b" } } }));
    const listed = await omp("list");
    expect(listed.stdout).toContain('MCP server "y" in ~/.omp/agent/mcp.json: args: expected an array');
    expect(listed.stdout).not.toContain("Invalid input");
    const badScope = await omp("add", "-s", "global", "x", "--", "y");
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain("expected one of user, project");
  });
});
