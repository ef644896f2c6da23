// `omp commit` on the compiled binary in real git repositories, the message written by the stand-in
// model: what the model is shown (the diff within budget, generated and binary files only named, the
// repository's own subjects), the changelog entries, confirm / edit / decline, --dry-run, --all.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, systemPromptOf, userTextsOf, workspace } from "../support/agent-harness.ts";
import { tempDir } from "../support/omp.ts";
import { plantGitConfig } from "../support/planted-git-config.ts";

const standin = await agentTestFile();
const env = () => ({
  ANTHROPIC_BASE_URL: standin.url,
  ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`,
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@e",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@e",
});

function git(cwd: string, ...args: string[]): string {
  const result = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@e" },
  });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.toString();
}

const CHANGELOG = "# Changelog\n\n## [Unreleased]\n\n### Fixed\n\n- An older fix\n\n## [1.0.0] - 2026-01-01\n\n### Added\n\n- The first release\n";

/** A repository whose history uses Conventional Commits, with a CHANGELOG.md and staged changes of each kind. */
function conventionalRepo(): { home: string; repo: string } {
  const { home, repo } = workspace({ "src/greet.ts": 'export const greet = () => "hi";\n', "CHANGELOG.md": CHANGELOG });
  for (const subject of ["feat(cli): add the --loud flag", "fix(greet): trim the name", "docs: explain greetings"]) {
    writeFileSync(join(repo, "notes.txt"), `${subject}\n`);
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", subject);
  }
  writeFileSync(join(repo, "src/greet.ts"), 'export const greet = (name: string) => `hi ${name}`;\n');
  writeFileSync(join(repo, "package-lock.json"), `${JSON.stringify({ lockfileVersion: 3, packages: { "": { name: "SECRET_LOCK_CONTENT" } } })}\n`);
  writeFileSync(join(repo, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0, 0]));
  git(repo, "add", "src/greet.ts", "package-lock.json", "logo.png");
  return { home, repo };
}

const reply = (subject: string, changelog?: object) => [{ text: JSON.stringify({ subject, body: "Greetings now name the person.", ...(changelog ? { changelog } : {}) }) }];

describe("omp commit", () => {
  test("--dry-run shows the message and changelog entries from the model and changes nothing", async () => {
    const { home, repo } = conventionalRepo();
    standin.setScript(reply("feat(greet): greet people by name", { "CHANGELOG.md": { added: ["Greetings name the person"] } }));
    const before = modelRequests(standin).length;
    const head = git(repo, "rev-parse", "HEAD");
    const staged = git(repo, "diff", "--cached", "--name-only");
    const run = await runAgent(["commit", "--dry-run"], { home, cwd: repo, env: env() });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("feat(greet): greet people by name");
    expect(run.stdout).toContain("Greetings now name the person.");
    expect(run.stdout).toContain("CHANGELOG.md:");
    expect(run.stdout).toContain("- Greetings name the person");
    expect(run.stdout).toContain("dry run");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(git(repo, "diff", "--cached", "--name-only")).toBe(staged);
    expect(readFileSync(join(repo, "CHANGELOG.md"), "utf8")).toBe(CHANGELOG);

    // What the model saw: the source diff, the lock file and the image named but not sent, the log's style.
    const [request] = modelRequests(standin).slice(before);
    const user = userTextsOf("anthropic-messages", request!.body).join("\n");
    expect(user).toContain('+export const greet = (name: string) => `hi ${name}`;');
    expect(user).toContain("package-lock.json (+1 -0, generated: diff not shown)");
    expect(user).not.toContain("SECRET_LOCK_CONTENT");
    expect(user).toContain("logo.png (binary, diff not shown)");
    expect(user).toContain("- fix(greet): trim the name");
    expect(user).toContain("CHANGELOG.md: logo.png, package-lock.json, src/greet.ts");
    expect(systemPromptOf("anthropic-messages", request!.body)).toContain("Conventional Commits");
  });

  test("confirmed: commits with the model's message and the changelog entry in the same commit", async () => {
    const { home, repo } = conventionalRepo();
    standin.setScript(reply("feat(greet): greet people by name", { "CHANGELOG.md": { Added: ["Greetings name the person"] } }));
    const run = await runAgent(["commit"], { home, cwd: repo, env: env(), stdin: "y\n" });
    expect(run.code).toBe(0);
    expect(git(repo, "log", "-1", "--format=%B").trim()).toBe("feat(greet): greet people by name\n\nGreetings now name the person.");
    expect(git(repo, "show", "--name-only", "--format=", "HEAD").split("\n").filter(Boolean).sort()).toEqual(["CHANGELOG.md", "logo.png", "package-lock.json", "src/greet.ts"]);
    const changelog = readFileSync(join(repo, "CHANGELOG.md"), "utf8");
    expect(changelog).toBe(
      "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- Greetings name the person\n\n### Fixed\n\n- An older fix\n\n## [1.0.0] - 2026-01-01\n\n### Added\n\n- The first release\n",
    );
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  test("declined: nothing is committed and the changes stay staged; edited: the user's words are committed", async () => {
    const { home, repo } = conventionalRepo();
    const head = git(repo, "rev-parse", "HEAD");
    standin.setScript(reply("feat(greet): greet people by name"));
    const declined = await runAgent(["commit", "--no-changelog"], { home, cwd: repo, env: env(), stdin: "n\n" });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain("nothing committed");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(git(repo, "diff", "--cached", "--name-only")).toContain("src/greet.ts");

    const editor = join(tempDir(), "editor.sh");
    writeFileSync(editor, "#!/bin/sh\nsed -i '1s/.*/feat(greet): say hello by name/' \"$1\"\n");
    chmodSync(editor, 0o755);
    standin.setScript(reply("feat(greet): greet people by name"));
    const edited = await runAgent(["commit", "--no-changelog"], { home, cwd: repo, env: { ...env(), GIT_EDITOR: editor }, stdin: "e\n" });
    expect(edited.code).toBe(0);
    expect(git(repo, "log", "-1", "--format=%s").trim()).toBe("feat(greet): say hello by name");
    expect(readFileSync(join(repo, "CHANGELOG.md"), "utf8")).toBe(CHANGELOG);
  });

  test("--all commits untracked and unstaged changes and --push pushes them; the smol role writes when no commit role is set", async () => {
    const { home, repo } = workspace({ "a.txt": "one\n" });
    const remote = tempDir();
    git(remote, "init", "-q", "--bare");
    git(repo, "remote", "add", "origin", remote);
    git(repo, "push", "-q", "-u", "origin", "main");
    writeFileSync(join(repo, "a.txt"), "two\n");
    writeFileSync(join(repo, "new.txt"), "brand new\n");
    standin.setScript(reply("Update a and add new"));
    const before = modelRequests(standin).length;
    const run = await runAgent(["commit", "--all", "--yes", "--push"], { home, cwd: repo, env: { ...env(), PI_SMOL_MODEL: "anthropic/claude-sonnet-5-5" } });
    expect(run.code).toBe(0);
    const [request] = modelRequests(standin).slice(before);
    expect(request!.body.model).toBe("claude-sonnet-5-5");
    expect(userTextsOf("anthropic-messages", request!.body).join("\n")).toContain("+brand new");
    expect(git(repo, "log", "-1", "--format=%s").trim()).toBe("Update a and add new");
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(remote, "rev-parse", "main")).toBe(git(repo, "rev-parse", "HEAD"));
  });

  test("no secret reaches the model: credential files are named only, known secret values and key shapes in a diff are redacted", async () => {
    const { home, repo } = workspace({ "a.txt": "one\n" });
    const token = `tok_${crypto.randomUUID().replaceAll("-", "")}`;
    const shaped = `sk-proj-${"A1b2".repeat(8)}`;
    writeFileSync(join(repo, ".env"), `DEPLOY_TOKEN=${token}\n`);
    writeFileSync(join(repo, "deploy.pem"), "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n");
    writeFileSync(join(repo, "a.txt"), `one\nconst key = "${shaped}";\nconst env = "${token}";\n`);
    git(repo, "add", "-A");
    standin.setScript(reply("Add the deploy settings"));
    const before = modelRequests(standin).length;
    const run = await runAgent(["commit", "--dry-run"], { home, cwd: repo, env: { ...env(), DEPLOY_TOKEN: token } });
    expect(run.code).toBe(0);
    const sent = JSON.stringify(modelRequests(standin).slice(before));
    expect(sent).toContain(".env (+1 -0, may hold credentials: diff not shown)");
    expect(sent).toContain("deploy.pem (+3 -0, may hold credentials: diff not shown)");
    expect(sent).toContain("+const key = ");
    expect(sent).not.toContain(token);
    expect(sent).not.toContain(shaped);
    expect(sent).not.toContain("MIIEvQ");
    expect(sent).toContain("[REDACTED]");
  });

  test("--all --dry-run in a repository configured to run programs (filters, diff drivers, textconv): none of them runs while the diff is read", async () => {
    const { home, repo } = conventionalRepo();
    writeFileSync(join(repo, "src/greet.ts"), "export const greet = () => \"hello\";\n");
    writeFileSync(join(repo, "new.txt"), "an untracked file\n");
    const marker = join(tempDir(), "ran.txt");
    plantGitConfig(repo, marker);
    standin.setScript(reply("fix(greet): say hello"));
    const before = modelRequests(standin).length;
    const run = await runAgent(["commit", "--all", "--dry-run"], { home, cwd: repo, env: env() });
    expect(run.code).toBe(0);
    const user = userTextsOf("anthropic-messages", modelRequests(standin)[before]!.body).join("\n");
    expect(user).toContain('+export const greet = () => "hello";');
    expect(user).toContain("+an untracked file");
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  });

  test("nothing staged, or no repository: a clear error and exit 1", async () => {
    const { home, repo } = workspace({ "a.txt": "one\n" });
    const nothing = await runAgent(["commit", "--yes"], { home, cwd: repo, env: env() });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain("nothing staged to commit");
    expect(nothing.stderr).toContain("git add");
    const outside = await runAgent(["commit", "--yes"], { home, cwd: tempDir(), env: env() });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("not in a git repository");
  });
});
