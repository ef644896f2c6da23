// Issue 38: the plugins the original omp (@oh-my-pi/pi-coding-agent 18.2.3, installed from npm by
// .ci/setup) keeps in ~/.omp/plugins — omp-plugins.lock.json, node_modules and its package.json —
// are omp's own npm-plugin layout. The original itself links the plugins and sets their features
// and enabled state; omp lists them and a print-mode run against the stand-in uses their commands
// and skills as the original's lock file says; the original still reads the files afterwards.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PEERS, peerBin } from "../../bench/edits-peers.ts";
import { agentTestFile, modelRequests, providerCases, runAgent, systemPromptOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { ROOT } from "../support/omp.ts";
import { writeTree } from "../support/plugin-fixtures.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const ORIGINAL = peerBin(PEERS.find((peer) => peer.name === "original omp")!);
// The original runs on bun (`#!/usr/bin/env bun`): the project's own.
const PATH = `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`;

/** A plugin in the original's shape: `omp` manifest with a feature, default commands/ and skills/. */
function plugin(dir: string, name: string) {
  writeTree(dir, {
    "package.json": JSON.stringify({ name, version: "1.2.0", omp: { features: { extra: { description: "deploy commands", commands: ["./extra-commands"] } } } }),
    "commands/hello.md": `---\ndescription: Say hello\n---\n${name.toUpperCase()}-HELLO to $ARGUMENTS\n`,
    "extra-commands/deploy.md": `---\ndescription: Deploy\n---\n${name.toUpperCase()}-DEPLOY $ARGUMENTS\n`,
    "skills/greet/SKILL.md": `---\nname: greet\ndescription: ${name} greets warmly\n---\nGREET-BODY\n`,
  });
}

async function runOriginal(home: string, cwd: string, args: string[]) {
  const child = Bun.spawn([ORIGINAL!, "plugin", ...args], { cwd, env: { PATH, HOME: home, LANG: "C.UTF-8" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ args, code, stderr: code === 0 ? "" : stderr }).toEqual({ args, code: 0, stderr: "" });
  return stdout;
}

describe.skipIf(ORIGINAL === undefined)("the original omp's plugins", () => {
  test("listed by omp plugin list and used in a session as its lock file says; the original still reads them after", async () => {
    const { home, repo } = workspace();
    const run = (args: string[]) => runAgent(args, { home, cwd: repo, env: provider.env(standin.url) });
    const prompt = async (text: string[]) => {
      standin.requests.length = 0;
      standin.setScript([{ text: "ok" }]);
      const result = await run(["-p", "--model", provider.model, ...text]);
      expect(result.code).toBe(0);
      const body = modelRequests(standin)[0]!.body;
      return { user: userTextsOf(provider.api, body).join("\n"), system: systemPromptOf(provider.api, body) };
    };

    // The original links two plugins, turns one's feature on and disables the other.
    plugin(join(home, "src", "team-kit"), "team-kit");
    plugin(join(home, "src", "old-kit"), "old-kit");
    await runOriginal(home, repo, ["link", join(home, "src", "team-kit")]);
    await runOriginal(home, repo, ["link", join(home, "src", "old-kit")]);
    await runOriginal(home, repo, ["features", "team-kit", "--enable", "extra"]);
    await runOriginal(home, repo, ["disable", "old-kit"]);
    // An install the original's bun made: a real folder in node_modules, declared in its
    // package.json; with no lock entry the original loads it enabled with default features.
    const plugins = join(home, ".omp", "plugins");
    plugin(join(plugins, "node_modules", "npm-kit"), "npm-kit");
    writeFileSync(join(plugins, "package.json"), JSON.stringify({ name: "omp-plugins", private: true, dependencies: { "npm-kit": "^1.2.0" } }, null, 2));
    const lockFile = join(plugins, "omp-plugins.lock.json");
    const lockBefore = readFileSync(lockFile, "utf8");

    const listed = await run(["plugin", "list", "--json"]);
    expect(listed.code).toBe(0);
    const byId = Object.fromEntries((JSON.parse(listed.stdout) as { id: string; enabled: boolean; version: string; features?: string[] | null }[]).map((p) => [p.id, [p.enabled, p.version, p.features ?? null]]));
    expect(byId).toEqual({ "team-kit": [true, "1.2.0", ["extra"]], "old-kit": [false, "1.2.0", null], "npm-kit": [true, "1.2.0", null] });

    const hello = await prompt(["/team-kit:hello", "world"]);
    expect(hello.user).toContain("TEAM-KIT-HELLO to world");
    expect(hello.system).toContain("- team-kit:greet: team-kit greets warmly");
    expect(hello.system).toContain("- npm-kit:greet: npm-kit greets warmly");
    expect(hello.system).not.toContain("old-kit");
    // The feature the original turned on brings its commands; npm-kit's default features do not.
    expect((await prompt(["/team-kit:deploy", "prod"])).user).toContain("TEAM-KIT-DEPLOY prod");
    expect((await prompt(["/npm-kit:hello", "you"])).user).toContain("NPM-KIT-HELLO to you");
    expect((await prompt(["/npm-kit:deploy", "prod"])).user).toBe("/npm-kit:deploy prod");
    expect((await prompt(["/old-kit:hello", "x"])).user).toBe("/old-kit:hello x");

    // Using them rewrote nothing, and the original lists them as before.
    expect(readFileSync(lockFile, "utf8")).toBe(lockBefore);
    const originalList = JSON.parse(await runOriginal(home, repo, ["list", "--json"])) as { npm: { name: string; enabled: boolean }[] };
    expect(Object.fromEntries(originalList.npm.map((p) => [p.name, p.enabled]))).toEqual({ "team-kit": true, "old-kit": false, "npm-kit": true });

    // An older lock file of the original's without `settings` is read the same.
    const legacy = JSON.parse(lockBefore) as Record<string, unknown>;
    delete legacy.settings;
    writeFileSync(lockFile, JSON.stringify(legacy));
    const again = await run(["plugin", "list", "--json"]);
    expect((JSON.parse(again.stdout) as { id: string }[]).map((p) => p.id).sort()).toEqual(["npm-kit", "old-kit", "team-kit"]);
  });
});
