// Tool paths under the approval modes: outside the project (its repository root) and the
// --add-dir dirs, reads and writes ask first under write and always-ask; a write through a
// symlink that leads out of the project counts as outside; yolo asks nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { tempDir } from "../support/temp.ts";
import { READY, testSessions } from "../support/tty-session.ts";

const standin = await agentTestFile();
const sessions = testSessions();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };

function outsideDir(): string {
  const dir = tempDir("omp-outside-");
  writeFileSync(join(dir, "secret.txt"), "the secret outside\n");
  return dir;
}

/** Runs one tool call in print mode and returns what the model was told. */
async function oneCall(repo: string, home: string, call: { name: string; arguments: Record<string, unknown> }, args: string[], cwd = repo) {
  standin.setScript([{ toolCalls: [call] }, { text: "done" }]);
  standin.requests.length = 0;
  const result = await runAgent(["-p", "--model", MODEL, ...args, "go"], { home, cwd, env });
  expect(result.code).toBe(0);
  return toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body)[0]!.text;
}

describe("print mode (nobody to ask)", () => {
  test("under write, a read outside the project is refused with the way to allow it; inside, from a subdir, it is not", async () => {
    const { home, repo } = workspace();
    const outside = outsideDir();
    mkdirSync(join(repo, "sub"));
    const read = { name: "read", arguments: { path: join(outside, "secret.txt") } };
    const refused = await oneCall(repo, home, read, ["--approval-mode", "write"]);
    expect(refused).toContain("is outside the project");
    expect(refused).toContain("--add-dir");
    expect(refused).not.toContain("the secret outside");
    // The project is the repository, not just the working directory.
    expect(await oneCall(repo, home, { name: "read", arguments: { path: "../README.md" } }, ["--approval-mode", "write"], join(repo, "sub"))).toContain("# demo");
    expect(await oneCall(repo, home, read, ["--approval-mode", "write", "--add-dir", outside])).toContain("the secret outside");
    expect(await oneCall(repo, home, read, ["--approval-mode", "yolo"])).toContain("the secret outside");
    expect(await oneCall(repo, home, { name: "ls", arguments: { path: outside } }, ["--approval-mode", "always-ask"])).toContain("is outside the project");
  });

  test("a write through a symlink that leaves the project counts as outside; yolo writes it", async () => {
    const { home, repo } = workspace();
    const outside = outsideDir();
    symlinkSync(outside, join(repo, "link"));
    const write = { name: "write", arguments: { path: "link/planted.txt", content: "planted" } };
    // Allowing the project's own dir again does not allow where its symlink leads.
    expect(await oneCall(repo, home, write, ["--approval-mode", "write", "--add-dir", repo])).toContain(`${join(repo, "link", "planted.txt")} is outside the project`);
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(await oneCall(repo, home, { name: "write", arguments: { path: "inside.txt", content: "x" } }, ["--approval-mode", "write"])).toContain(
      "needs approval under --approval-mode write",
    );
    await oneCall(repo, home, write, ["--approval-mode", "yolo"]);
    expect(readFileSync(join(outside, "planted.txt"), "utf8")).toBe("planted");
  });

  test("--add-dir must name a directory", async () => {
    const { home, repo } = workspace();
    const result = await runAgent(["-p", "--model", MODEL, "--add-dir", "nope", "go"], { home, cwd: repo, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--add-dir: nope is not a directory");
  });
});

describe("interactive (the user is asked)", () => {
  test("under write, a read outside asks and says so; 'always' for writes inside does not cover a write through a symlink out", async () => {
    const outside = outsideDir();
    const cwd = tempDir("omp-paths-project-");
    mkdirSync(join(cwd, ".git"));
    symlinkSync(outside, join(cwd, "link"));
    const s = await sessions.start({
      cwd,
      args: ["--approval-mode", "write"],
      script: [
        { toolCalls: [{ name: "read", arguments: { path: join(outside, "secret.txt") } }] },
        { toolCalls: [{ name: "write", arguments: { path: "one.txt", content: "1" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "two.txt", content: "2" } }] },
        { toolCalls: [{ name: "write", arguments: { path: "link/three.txt", content: "3" } }] },
        { text: "Finished." },
      ],
    });
    const { tty } = s;
    await tty.waitFor(READY);
    tty.type("go");
    tty.press("Enter");
    const question = await tty.waitFor(`Allow read? ${join(outside, "secret.txt")} (outside the project)`);
    expect(question).toContain("don't ask again for read outside the project");
    tty.press("y");
    await tty.waitFor("Allow write? one.txt");
    tty.press("a");
    await tty.waitFor("Allow write? link/three.txt (outside the project)");
    expect(readFileSync(join(cwd, "two.txt"), "utf8")).toBe("2");
    tty.press("Escape");
    // Esc denies and ends the turn.
    await tty.waitFor("you denied that call");
    expect(existsSync(join(outside, "three.txt"))).toBe(false);
    expect(toolResultsOf("anthropic-messages", modelRequests(s.standin)[1]!.body)[0]!.text).toContain("the secret outside");
  });
});
