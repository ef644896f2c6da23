// The tools of the last round (eval's kernels and notebooks, inspect_image, local://) tried the way
// a prompt-injected model would in a project with default settings: a symlink planted in the
// project that points at ~/.ssh, and writes to the files that run code later (.git/config, git
// hooks). Every door is held by the same policy as read/write and bash: nothing of the key reaches
// the model, and the code-running files are unchanged.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;
const KEY = `ssh-key-material-${crypto.randomUUID()}`;

function machine() {
  const ws = workspace();
  mkdirSync(join(ws.home, ".ssh"), { recursive: true });
  writeFileSync(join(ws.home, ".ssh", "id_rsa"), `${KEY}\n`, { mode: 0o600 });
  const notebook = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: "code", id: "k", metadata: {}, execution_count: null, outputs: [], source: ["open('ran-from-notebook', 'w').write('yes')"] }] };
  writeFileSync(join(ws.home, ".ssh", "keys.ipynb"), JSON.stringify(notebook));
  symlinkSync(join(ws.home, ".ssh", "id_rsa"), join(ws.repo, "k"));
  symlinkSync(join(ws.home, ".ssh", "id_rsa"), join(ws.repo, "k.png"));
  symlinkSync(join(ws.home, ".ssh", "keys.ipynb"), join(ws.repo, "nb.ipynb"));
  return ws;
}

describe("the last round's doors under one policy", () => {
  test("a planted symlink to ~/.ssh and writes to .git/config or a git hook get nowhere through eval, notebooks, inspect_image or local://", async () => {
    const ws = machine();
    const config = readFileSync(join(ws.repo, ".git", "config"), "utf8");
    const attempt = (what: string, code: string) => `try:\n${code.replace(/^/gm, "    ")}\n    print('${what} DONE')\nexcept Exception as error:\n    print('${what} refused', type(error).__name__)`;
    const calls = [
      { name: "eval", arguments: { cells: [{ language: "py", code: attempt("symlink", "print(open('k').read())") }] } },
      { name: "eval", arguments: { cells: [{ language: "py", code: attempt("config", "open('.git/config', 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')") }] } },
      { name: "eval", arguments: { cells: [{ language: "py", code: attempt("hook", "open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\ntouch pwned\\n')") }] } },
      { name: "eval", arguments: { cells: [{ language: "js", code: `try { require("node:fs").readFileSync("k", "utf8") } catch (e) { "symlink refused " + e.code }` }] } },
      { name: "eval", arguments: { cells: [{ language: "js", code: `try { require("node:fs").appendFileSync(".git/config", "[alias]\\n\\tx = !touch pwned\\n"); "config DONE" } catch (e) { "config refused " + e.code }` }] } },
      { name: "eval", arguments: { notebook: { path: "nb.ipynb" } } },
      { name: "inspect_image", arguments: { path: "k.png", question: "What is in it?" } },
      { name: "read", arguments: { path: "local://../../k" } },
      { name: "write", arguments: { path: "local://../../.git/config", content: "[core]\n\tfsmonitor = touch pwned\n" } },
    ];
    standin.requests.length = 0;
    standin.setScript([...calls.map((call, i) => ({ toolCalls: [{ id: `c${i}`, ...call }] })), { text: "done" }]);
    const run = await runAgent(["-p", "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: { ...provider.env(standin.url), TMPDIR: tempDir("omp-doors-tmp-") } });
    const requests = modelRequests(standin);
    expect({ code: run.code, requests: requests.length }).toEqual({ code: 0, requests: calls.length + 1 });
    const texts = requests.slice(1).map((request) => toolResultsOf(provider.api, request.body).at(-1)?.text ?? "");
    const wire = requests.map((request) => JSON.stringify(request.body)).join("\n");
    expect(wire).not.toContain(KEY);
    expect(texts[0]).toContain("symlink refused");
    expect(texts[1]).toContain("config refused");
    expect(texts[2]).toContain("hook refused");
    expect(texts[3]).toMatch(/symlink refused (EACCES|ENOENT|EPERM)/);
    expect(texts[4]).toMatch(/config refused (EACCES|ENOENT|EPERM|EROFS)/);
    expect(texts[5]).toContain("deny-list");
    expect(texts[6]).toContain("deny-list");
    expect(texts[7]).toContain("outside the session's local:// folder");
    expect(texts[8]).toContain("outside the session's local:// folder");
    for (const text of texts.slice(0, 5)) expect(text).not.toContain("DONE");
    expect(readFileSync(join(ws.repo, ".git", "config"), "utf8")).toBe(config);
    expect(Bun.file(join(ws.repo, ".git", "hooks", "pre-commit")).size).toBe(0);
    expect(await Bun.file(join(ws.repo, "ran-from-notebook")).exists()).toBe(false);
    expect(await Bun.file(join(ws.repo, "pwned")).exists()).toBe(false);
  });
});
