// Skills and markdown slash commands in the compiled binary, against the provider stand-in: the
// skill list in the system prompt and a body loaded through the skill tool, /skill:name by hand,
// a command with every expansion in print, json and rpc modes (!`cmd` allowed, not allowed, and
// from an untrusted then trusted folder), a command's model for one prompt, `omp extensions`
// listing sloppy files, and each problem reported once.
import { describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setFolderTrust } from "../../core/trust/folder-trust.ts";
import {
  type ProviderCase,
  agentTestFile,
  frames,
  modelRequests,
  providerCases,
  providerTable,
  runAgent,
  systemPromptOf,
  toolNamesOf,
  toolResultsOf,
  userTextsOf,
  workspace,
} from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const anthropic: ProviderCase = providerCases()[0]!;

function put(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const PDF_SKILL = `---
name: pdf
description: Extract text and tables from PDF files. Use when: the user mentions a PDF
allowed-tools:
  - Read
  - Bash(pdftotext:*)
---
# PDF handling

Run pdftotext -layout on the file, then read references/tables.md for tables.
`;

/** A HOME and a repository holding skills and commands, sloppy ones included. */
function extensionWorkspace() {
  const ws = workspace({
    "src/math.sh": "add() {\n  echo $(( $1 + $2 ))\n}\n",
    "notes.md": "NOTES-CONTENT: remember the edge cases\n",
    "README.md": "# demo\n",
  });
  put(join(ws.home, ".omp", "agent"), {
    "skills/pdf/SKILL.md": PDF_SKILL,
    "skills/pdf/references/tables.md": "tables\n",
  });
  put(join(ws.home, ".claude"), {
    "commands/git/st.md": "---\ndescription: Show the working tree status\nallowed-tools: Bash(git status:*), Bash(git branch:*)\n---\nStatus:\n!`git status --short`\nForbidden: !`echo forbidden-ran`\nFocus on $ARGUMENTS.\n",
  });
  put(ws.repo, {
    ".claude/skills/Writing Rules/SKILL.md": "# Writing rules\n\nHow the team writes hookify rules.\n\nStep one: RULES-BODY.\n",
    ".claude/skills/broken/SKILL.md": '---\nname: "broken\ndescription: never closed\n',
    ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: a project pdf skill\n---\nproject body\n",
    ".claude/skills/empty/README.txt": "no skill here\n",
    ".claude/skills/loose.md": "# not in a folder\n",
    ".omp/commands/review.md":
      "---\ndescription: Review a file\nargument-hint: <file> <focus>\nallowed-tools: [\"Bash(echo:*)\"]\nmodel: claude-opus-4-5\n---\nReview $1 with focus on $2 (all: $ARGUMENTS).\nProject says: !`echo project-ran`\nSee @notes.md\n",
    ".omp/commands/empty.md": "---\ndescription: nothing\n---\n",
    ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\nYou review.\n",
    ".claude/agents/no-frontmatter.md": "just text\n",
  });
  return ws;
}

function trust(home: string, folder: string): void {
  setFolderTrust(folder, true, { OMP_AGENT_DIR: join(home, ".omp", "agent") });
}

describe.each(providerTable())("skills over %s", (_api, provider) => {
  test("the system prompt lists skills within the budget; the model loads a body with the skill tool", async () => {
    const { home, repo } = extensionWorkspace();
    standin.setScript([{ toolCalls: [{ name: "skill", arguments: { name: "pdf" } }] }, { text: "Done." }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "get the tables out of report.pdf"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Done.\n");
    const [first, second] = modelRequests(standin);
    const system = systemPromptOf(provider.api, first!.body);
    expect(system).toContain("- pdf: Extract text and tables from PDF files. Use when: the user mentions a PDF");
    expect(system).toContain("- writing-rules: How the team writes hookify rules.");
    // Bodies are not in the prompt until used.
    expect(system).not.toContain("pdftotext -layout");
    expect(system).not.toContain("RULES-BODY");
    expect(toolNamesOf(provider.api, first!.body)).toContain("skill");
    const results = toolResultsOf(provider.api, second!.body);
    expect(results).toHaveLength(1);
    expect(results[0]!.text).toContain("Run pdftotext -layout on the file");
    expect(results[0]!.text).not.toContain("allowed-tools");
    expect(results[0]!.text).toContain(`The skill's folder is ${join(home, ".omp", "agent", "skills", "pdf")}`);
    expect(results[0]!.text).toContain("references/tables.md");
  });
});

describe("skills", () => {
  test("/skill:name and a bare /name send the body and the request as the user turn", async () => {
    const { home, repo } = extensionWorkspace();
    standin.setScript([{ text: "ok" }, { text: "ok" }]);
    standin.requests.length = 0;
    const env = anthropic.env(standin.url);
    const byPrefix = await runAgent(["-p", "--model", anthropic.model, "/skill:pdf", "summarize", "report.pdf"], { home, cwd: repo, env });
    expect(byPrefix.code).toBe(0);
    const bare = await runAgent(["-p", "--model", anthropic.model, "/writing-rules"], { home, cwd: repo, env });
    expect(bare.code).toBe(0);
    const [first, second] = modelRequests(standin).map((r) => userTextsOf(anthropic.api, r.body).join("\n"));
    expect(first).toContain(`<skill name="pdf" path="${join(home, ".omp", "agent", "skills", "pdf", "SKILL.md")}">`);
    expect(first).toContain("Run pdftotext -layout on the file");
    expect(first).toMatch(/<\/skill>[\s\S]*summarize report\.pdf$/);
    expect(second).toContain("Step one: RULES-BODY.");
  });

  test("--tools without skill: the list points at each SKILL.md for the read tool; --tools read,skill keeps the tool", async () => {
    const { home, repo } = extensionWorkspace();
    standin.setScript([{ text: "ok" }, { text: "ok" }]);
    standin.requests.length = 0;
    const env = anthropic.env(standin.url);
    expect((await runAgent(["-p", "--model", anthropic.model, "--tools", "read,grep", "hi"], { home, cwd: repo, env })).code).toBe(0);
    expect((await runAgent(["-p", "--model", anthropic.model, "--tools", "read,skill", "hi"], { home, cwd: repo, env })).code).toBe(0);
    const [readOnly, withSkill] = modelRequests(standin);
    expect(toolNamesOf(anthropic.api, readOnly!.body)).toEqual(["read", "grep"]);
    expect(systemPromptOf(anthropic.api, readOnly!.body)).toContain(`- pdf: Extract text and tables from PDF files. Use when: the user mentions a PDF (${join(home, ".omp", "agent", "skills", "pdf", "SKILL.md")})`);
    expect(toolNamesOf(anthropic.api, withSkill!.body)).toEqual(["read", "skill"]);
  });

  test("many skills: the list stays within its budget and says how many were left out", async () => {
    const { home, repo } = workspace();
    const long = "d".repeat(280);
    for (let i = 0; i < 200; i++) {
      const name = `skill-number-${String(i).padStart(3, "0")}`;
      put(join(home, ".omp", "agent", "skills", name), { "SKILL.md": `---\nname: ${name}\ndescription: ${long}\n---\nbody\n` });
    }
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", anthropic.model, "hi"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    const system = systemPromptOf(anthropic.api, modelRequests(standin)[0]!.body);
    const section = system.slice(system.indexOf("<skills>"), system.indexOf("</skills>"));
    expect(section.length).toBeLessThan(13_000);
    expect(section).toContain("- skill-number-000: ddd");
    expect(section).toMatch(/- also \(no room for their descriptions\): skill-number-\d+, skill-number-\d+/);
    expect(section).toMatch(/- \d+ more skills not listed to keep this prompt short/);
  });
});

describe("markdown commands", () => {
  test("print mode: $1 $2 $ARGUMENTS @file; !`cmd` skipped in an untrusted folder, then run once trusted; model for the one prompt", async () => {
    const { home, repo } = extensionWorkspace();
    const env = anthropic.env(standin.url);
    standin.setScript([{ text: "reviewed" }, { text: "reviewed again" }]);
    standin.requests.length = 0;
    const untrusted = await runAgent(["-p", "--model", anthropic.model, "/review", "src/math.sh", '"edge cases"'], { home, cwd: repo, env });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toBe("reviewed\n");
    expect(untrusted.stderr).toContain(`is not trusted, so these were skipped: !\`cmd\` lines in ${join(realpathSync(repo), ".omp", "commands", "review.md")}`);
    expect(untrusted.stderr).toContain("omp trust");
    const [request] = modelRequests(standin);
    expect(request!.body.model).toBe("claude-opus-4-5");
    const text = userTextsOf(anthropic.api, request!.body).join("\n");
    expect(text).toContain('Review src/math.sh with focus on edge cases (all: src/math.sh "edge cases").');
    expect(text).toContain("[!`echo project-ran` was not run: the project folder is not trusted]");
    expect(text).not.toContain("project-ran\n");
    expect(text).toContain('<file path="notes.md">\nNOTES-CONTENT: remember the edge cases');

    trust(home, repo);
    const trusted = await runAgent(["-p", "--model", anthropic.model, "/review", "src/math.sh"], { home, cwd: repo, env });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).not.toContain("not trusted");
    const again = userTextsOf(anthropic.api, modelRequests(standin)[1]!.body).join("\n");
    expect(again).toContain("Project says: project-ran");
    // A $2 with no second argument stays as written, as in Claude Code.
    expect(again).toContain("Review src/math.sh with focus on $2 (all: src/math.sh).");
  });

  test("json mode: a user-level command runs the !`cmd` its allowed-tools permit and not the others", async () => {
    const { home, repo } = extensionWorkspace();
    writeFileSync(join(repo, "untracked-file.txt"), "x\n");
    standin.setScript([{ text: "status seen" }]);
    standin.requests.length = 0;
    const result = await runAgent(["--mode", "json", "--model", anthropic.model, "/git:st", "the", "tests"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("!`echo forbidden-ran` was not run: the command's allowed-tools do not permit it");
    const events = frames(result.stdout.split("\n"));
    const user = events.find((e) => e.type === "message_start" && e.message.role === "user").message;
    const text = user.content.map((c: any) => c.text).join("\n");
    expect(text).toContain("?? untracked-file.txt");
    expect(text).toContain("Forbidden: [!`echo forbidden-ran` was not run: allowed-tools does not permit it]");
    expect(text).toContain("Focus on the tests.");
    expect(userTextsOf(anthropic.api, modelRequests(standin)[0]!.body).join("\n")).toContain("?? untracked-file.txt");
  });

  test("a path or an unknown /name is sent as typed", async () => {
    const { home, repo } = extensionWorkspace();
    standin.setScript([{ text: "a" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", anthropic.model, "/etc/hosts is odd"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(userTextsOf(anthropic.api, modelRequests(standin)[0]!.body)).toEqual(["/etc/hosts is odd"]);
  });

  test("rpc: get_available_commands; a prompt with /review expands, runs on the command's model, and the next prompt is back on the session's", async () => {
    const { home, repo } = extensionWorkspace();
    trust(home, repo);
    standin.setScript([{ text: "one" }, { text: "two" }]);
    standin.requests.length = 0;
    const rpc = new RpcProcess(["--model", anthropic.model], { home, cwd: repo, env: anthropic.env(standin.url) });
    try {
      await rpc.out.waitFor(() => true);
      const listed = await rpc.send({ type: "get_available_commands" });
      expect(listed.success).toBe(true);
      const byName = new Map<string, any>(listed.data.commands.map((c: any) => [c.name, c]));
      expect(byName.get("review")).toMatchObject({ kind: "command", location: "project", description: "Review a file", argumentHint: "<file> <focus>", path: join(repo, ".omp", "commands", "review.md") });
      expect(byName.get("git:st")).toMatchObject({ kind: "command", location: "user", description: "Show the working tree status" });
      expect(byName.get("skill:pdf")).toMatchObject({ kind: "skill", location: "user" });
      expect(byName.get("skill:writing-rules")).toMatchObject({ kind: "skill", location: "project" });
      expect(byName.has("empty")).toBe(false);

      let mark = rpc.mark;
      const prompted = await rpc.send({ type: "prompt", message: "/review src/math.sh speed" });
      expect(prompted.data).toMatchObject({ agentInvoked: true, invoked: { kind: "command", name: "review" }, warnings: [] });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "plain question" });
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const [first, second] = modelRequests(standin);
      expect(first!.body.model).toBe("claude-opus-4-5");
      expect(userTextsOf(anthropic.api, first!.body).join("\n")).toContain("Review src/math.sh with focus on speed");
      expect(userTextsOf(anthropic.api, first!.body).join("\n")).toContain("Project says: project-ran");
      expect(second!.body.model).toBe(anthropic.model.slice("anthropic/".length));
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});

describe("omp extensions", () => {
  test("--json lists every skill and command with its file; shadowed and skipped ones with why; problems go to stderr once in a run", async () => {
    const { home, repo } = extensionWorkspace();
    const result = await runAgent(["extensions", "--json"], { home, cwd: repo });
    expect(result.code).toBe(0);
    const listing = JSON.parse(result.stdout);
    const find = (kind: string, name: string, status?: string) => listing.items.find((i: any) => i.kind === kind && i.name === name && (!status || i.status === status));
    expect(listing.sources.map((s: any) => [s.kind, s.root, s.trusted])).toEqual([
      ["user", join(home, ".omp", "agent"), true],
      ["user", join(home, ".claude"), true],
      ["project", join(repo, ".omp"), false],
      ["project", join(repo, ".claude"), false],
    ]);
    expect(find("skill", "pdf", "loaded")).toMatchObject({ source: "user", path: join(home, ".omp", "agent", "skills", "pdf", "SKILL.md") });
    expect(find("skill", "pdf", "shadowed")).toMatchObject({ source: "project", reason: "shadowed by ~/.omp/agent/skills/pdf/SKILL.md" });
    expect(find("skill", "writing-rules")).toMatchObject({ status: "loaded", description: "How the team writes hookify rules.", note: 'name "Writing Rules" used as writing-rules' });
    expect(find("skill", "broken")).toMatchObject({ status: "loaded", warning: "the frontmatter starts with --- but has no closing --- line" });
    expect(find("skill", "empty")).toMatchObject({ status: "skipped", reason: "no SKILL.md in this folder" });
    expect(find("skill", "loose")).toMatchObject({ status: "skipped", reason: "a skill is a folder with a SKILL.md: move it to skills/loose/SKILL.md" });
    expect(find("command", "review")).toMatchObject({ status: "loaded", source: "project", description: "Review a file" });
    expect(find("command", "git:st")).toMatchObject({ status: "loaded", source: "user" });
    expect(find("command", "empty")).toMatchObject({ status: "skipped", reason: "the command has no body to send" });
    expect(find("agent", "general-purpose")).toMatchObject({ status: "loaded", source: "builtin" });
    expect(find("agent", "reviewer")).toMatchObject({ status: "loaded", source: "project", path: join(repo, ".claude", "agents", "reviewer.md"), description: "Reviews diffs" });
    expect(find("agent", "no-frontmatter")).toMatchObject({ status: "skipped", path: join(repo, ".claude", "agents", "no-frontmatter.md") });
    expect(find("agent", "no-frontmatter").reason).toContain("no frontmatter");

    const text = await runAgent(["extensions"], { home, cwd: repo });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Skills \(3 loaded, 1 shadowed, 2 skipped\)$/m);
    expect(text.stdout).toMatch(/^✗ empty +project +.*no SKILL\.md in this folder$/m);
    expect(text.stdout).toMatch(/^~ pdf +project .* — shadowed by ~\/\.omp\/agent\/skills\/pdf\/SKILL\.md$/m);
    expect(text.stdout).toMatch(/^Commands \(2 loaded, 1 skipped\)$/m);
    expect(text.stdout).toMatch(/^ {2}\/review +project/m);
    expect(text.stdout).toMatch(/^Agents \(2 loaded, 1 skipped\)$/m);

    standin.setScript([{ text: "ok" }]);
    const run = await runAgent(["-p", "--model", anthropic.model, "hi"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(run.code).toBe(0);
    const reports = run.stderr.split("\n").filter((line) => line.includes("broken/SKILL.md"));
    expect(reports).toEqual([`omp: ${join(repo, ".claude", "skills", "broken", "SKILL.md")}: the frontmatter starts with --- but has no closing --- line`]);
    expect(run.stderr).toContain("empty: no SKILL.md in this folder (skipped)");
  });

  test("a folder with nothing to load says where omp looked", async () => {
    const { home, repo } = workspace();
    const result = await runAgent(["extensions"], { home, cwd: repo });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("No skills or commands: omp looks in ~/.omp/agent, ~/.claude, and .omp, .claude, .agents");
  });
});
