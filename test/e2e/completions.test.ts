// `omp completions bash|zsh|fish`: the scripts sourced in real shells complete commands, flags and
// the values omp knows at TAB time (models, this folder's sessions, setting keys).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentTestFile, readJsonl, runAgent, sessionFiles, workspace } from "../support/agent-harness.ts";
import { OMP, cleanEnv, runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();

/** What bash's completion offers for `words` (the last one being completed), with omp on PATH. */
function bashComplete(script: string, home: string, cwd: string, words: string[]): string[] {
  const line = `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _omp; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const env = { ...cleanEnv(home), PATH: `${dirname(OMP)}:${process.env.PATH}` };
  const result = spawnSync("bash", ["-c", line], { cwd, env, encoding: "utf8" });
  expect(result.stderr).toBe("");
  return result.stdout.split("\n").filter(Boolean);
}

describe("omp completions", () => {
  test("bash: commands, subcommands, flags, fixed values, models, this folder's sessions and setting keys", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` };
    standin.setScript([{ text: "hi" }]);
    const run = await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "hello"], { home, cwd: repo, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [session] = sessionFiles(home);
    const id = readJsonl(session!)[0].id as string;
    expect(id).toBeTruthy();

    const printed = await runOmp(["completions", "bash"], { home });
    expect(printed.code).toBe(0);
    const script = join(tempDir(), "omp.bash");
    writeFileSync(script, printed.stdout);
    expect(spawnSync("shellcheck", ["-s", "bash", script], { encoding: "utf8" }).stdout).toBe("");

    const complete = (...words: string[]) => bashComplete(script, home, repo, ["omp", ...words]);
    expect(complete("con")).toEqual(["config"]);
    expect(complete("completions", "")).toEqual(["bash", "zsh", "fish"]);
    expect(complete("config", "set", "approvalM")).toEqual(["approvalMode"]);
    expect(complete("config", "get", "compaction.en")).toEqual(["compaction.enabled"]);
    expect(complete("--model", "anthropic/claude-opus-5-")).toContain("anthropic/claude-opus-5-5");
    expect(complete("--thinking", "x")).toEqual(["xhigh"]);
    expect(complete("-r", "")).toEqual([id]);
    expect(complete("--sandbox", "r")).toEqual(["read-only"]);
    expect(complete("update", "--ch")).toEqual(["--check", "--channel"]);
    // A folder with no sessions offers none; the list command prints nothing rather than an error.
    expect(bashComplete(script, home, tempDir(), ["omp", "--resume", ""])).toEqual([]);
  });

  test("zsh and fish scripts parse and carry the same commands and value lists", async () => {
    const home = tempDir();
    for (const [shell, check] of [
      ["zsh", ["zsh", "-n"]],
      ["fish", ["fish", "--no-execute"]],
    ] as const) {
      const printed = await runOmp(["completions", shell], { home });
      expect(printed.code).toBe(0);
      const file = join(tempDir(), `omp.${shell}`);
      writeFileSync(file, printed.stdout);
      const parsed = spawnSync(check[0], [check[1], file], { encoding: "utf8" });
      expect(parsed.stderr).toBe("");
      expect(parsed.status).toBe(0);
      expect(printed.stdout).toContain("omp completions --list models");
      expect(printed.stdout).toContain("omp completions --list sessions");
      expect(printed.stdout).toContain("omp completions --list settings");
    }
  });

  test("an unknown shell or list is a usage error saying what is accepted", async () => {
    const home = tempDir();
    const shell = await runOmp(["completions", "pwsh"], { home });
    expect(shell.code).toBe(2);
    expect(shell.stderr).toContain("expected bash, zsh, fish");
    const list = await runOmp(["completions", "--list", "colours"], { home });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("expected one of models, sessions, settings");
  });
});
