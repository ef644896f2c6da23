// The repository summary the first request carries, on the compiled binary: a repository's branch
// and commits, a linked worktree's too (its `.git` is a file naming its git dir), and nothing in a
// folder outside any repository, where omp runs no git at all before the first request.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, git, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";
import { tempDir } from "../support/temp.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` });

async function firstRequestText(home: string, cwd: string, path?: string): Promise<string> {
  standin.setScript([{ text: "ok" }]);
  const before = modelRequests(standin).length;
  const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "hi"], { home, cwd, env: { ...env(), ...(path ? { PATH: path } : {}) } });
  expect(run.code).toBe(0);
  return JSON.stringify(modelRequests(standin)[before]!.body);
}

describe("the repository summary", () => {
  test("a repository's and a linked worktree's are told; a folder outside git gets none, and no git runs for it", async () => {
    const { home, repo } = workspace({ "README.md": "# demo\n" });
    expect(await firstRequestText(home, repo)).toContain("Branch: main");
    const worktree = join(tempDir("omp-git-summary-"), "linked");
    git(repo, "worktree", "add", "-q", "-b", "side", worktree);
    const linked = await firstRequestText(home, worktree);
    expect(linked).toContain("Branch: side");
    expect(linked).toContain("initial");

    // A git on PATH that leaves a mark when run: outside a repository it must not be.
    const plain = tempDir("omp-git-summary-plain-");
    const bin = tempDir("omp-git-summary-bin-");
    const marker = join(bin, "ran");
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$@" >> ${marker}\nexec /usr/bin/git "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    mkdirSync(join(plain, "src"));
    const text = await firstRequestText(home, plain, `${bin}:${process.env.PATH}`);
    expect(text).not.toContain("Branch:");
    expect(await Bun.file(marker).exists()).toBe(false);
    // The same git is run in a repository (so the mark above means something).
    await firstRequestText(home, repo, `${bin}:${process.env.PATH}`);
    expect(await Bun.file(marker).text()).toContain("status");
  });
});
