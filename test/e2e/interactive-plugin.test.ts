// `/plugin` in the interactive mode (tmux): adding a marketplace, browsing and installing from it,
// disabling and uninstalling, with the same state the CLI reads (`omp plugin list --json`).
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp } from "../support/omp.ts";
import { writeTree } from "../support/plugin-fixtures.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const ready = readySessions();

test("/plugin marketplace add, then the browser installs; /plugins disable and uninstall match the CLI", async () => {
  const s = await ready();
  const { tty, home, cwd } = s;
  writeTree(join(cwd, "market"), {
    ".claude-plugin/marketplace.json": JSON.stringify({ name: "local-team", owner: { name: "t" }, plugins: [{ name: "fmt", source: "./fmt", description: "formatting kit" }] }),
    "fmt/.claude-plugin/plugin.json": JSON.stringify({ name: "fmt", version: "1.0.0" }),
    "fmt/commands/fmt.md": "Format\n",
    "fmt/.mcp.json": JSON.stringify({ mcpServers: { fmtd: { command: "fmtd", args: ["--stdio"] } } }),
  });
  tty.type("/plugin marketplace add ./market");
  tty.press("Enter");
  await tty.waitFor("Added marketplace local-team (1 plugins).");

  tty.type("/plugin");
  tty.press("Enter");
  await tty.waitFor("Browse marketplaces");
  tty.press("Enter");
  await tty.waitFor("fmt@local-team");
  expect(tty.screen()).toContain("formatting kit");
  tty.press("Enter");
  await tty.waitFor("Installed fmt@local-team 1.0.0 (user)");
  await tty.waitFor("It will run: MCP server fmtd: fmtd --stdio");
  const cli = await runOmp(["plugin", "list", "--json"], { home, cwd });
  expect(JSON.parse(cli.stdout)).toEqual([expect.objectContaining({ id: "fmt@local-team", enabled: true, scope: "user" })]);

  tty.type("/plugins disable fmt@local-team");
  tty.press("Enter");
  await tty.waitFor("Disabled fmt@local-team (user) from the next session.");
  const state = JSON.parse(readFileSync(join(home, ".omp", "plugins", "installed_plugins.json"), "utf8"));
  expect(state.plugins["fmt@local-team"][0].enabled).toBe(false);

  tty.type("/marketplace uninstall fmt@local-team");
  tty.press("Enter");
  await tty.waitFor("Uninstalled fmt@local-team (user).");
  expect(existsSync(state.plugins["fmt@local-team"][0].installPath)).toBe(false);

  tty.type("/plugin install nope@local-team");
  tty.press("Enter");
  await tty.waitFor("marketplace local-team has no plugin nope");
  expect(s.standin.requests.filter((r) => r.method === "POST")).toHaveLength(0);
});
