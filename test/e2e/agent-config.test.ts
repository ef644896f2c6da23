// What the user sets up around the agent: config and model errors, models.yml providers, keys kept
// off the disk, approval mode, tool selection, context files, and print mode's inputs and outputs.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  filesContaining,
  modelRequests,
  agentTestFile,
  providerCases,
  providerTable,
  readJsonl,
  runAgent,
  sessionFiles,
  spawnOmp,
  systemPromptOf,
  toolNamesOf,
  toolResultsOf,
  userTextsOf,
  walk,
  workspace,
} from "../support/agent-harness.ts";
import { toolSpec } from "../../core/agent/tool-specs.ts";
import { builtinToolDefinitions } from "../../core/tools/builtin-specs.ts";
import { defineTool } from "../../core/tools/define.ts";
import { callToolParameters } from "../../core/tools/discovery/call-spec.ts";
import { taskParameters } from "../../core/extensions/agents/task-spec.ts";

const standin = await agentTestFile();

const cases = providerTable();
const anthropic = providerCases()[0]!;

function writeAgentFile(home: string, name: string, text: string): void {
  mkdirSync(join(home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(home, ".omp", "agent", name), text);
}

describe("setup errors: a clear message, exit 2, no session file, no request", () => {
  const errors: [string, (home: string, repo: string) => string[], RegExp[]][] = [
    [
      "a bad value in a --config overlay",
      (_home, repo) => (writeFileSync(join(repo, "extra.yml"), "retry:\n  maxRetries: -3\n"), ["--config", "extra.yml"]),
      [/extra\.yml: retry\.maxRetries: got -3/],
    ],
    [
      "a bad baseUrl in models.yml",
      (home) => (writeAgentFile(home, "models.yml", "providers:\n  mylocal:\n    baseUrl: notaurl\n    api: openai-completions\n    models: [{id: m}]\n"), []),
      [/models\.yml: providers\.mylocal\.baseUrl: got "notaurl", expected a URL/],
    ],
    ["an unknown model", () => ["--model", "nosuch-model-xyz"], [/unknown model "nosuch-model-xyz"/, /omp --list-models/]],
    ["a model whose provider has no key", () => ["--model", "openai/gpt-6.2-sol"], [/No API key for openai: set OPENAI_API_KEY, or run `omp auth add openai`/]],
    ["an unknown --approval-mode", () => ["--approval-mode", "sometimes"], [/--approval-mode: .*"sometimes".*always-ask, write, yolo/]],
    ["an unknown tool in --tools", () => ["--tools", "read,nope"], [/Unknown tool "nope" in --tools\. Valid tools: read, /]],
  ];

  test.each(errors)("%s", async (_name, setup, patterns) => {
    const { home, repo } = workspace();
    const args = setup(home, repo);
    standin.requests.length = 0;
    const result = await runAgent(["-p", ...args, "hello"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    for (const pattern of patterns) expect(result.stderr).toMatch(pattern);
    expect(result.stderr.trim().startsWith("omp: ")).toBe(true);
    expect(result.stderr).not.toContain("    at ");
    expect(sessionFiles(home)).toEqual([]);
    expect(modelRequests(standin)).toEqual([]);
  });

  // A config.yml is the user's for years and may hold the original omp's keys: never a lock-out.
  const warnings: [string, (home: string, repo: string) => void, RegExp[]][] = [
    // At the unclosed [ itself, and a mis-indented line at itself, not where the parser noticed it.
    ["invalid YAML in config.yml", (home) => writeAgentFile(home, "config.yml", "model: [unclosed\n"), [/~\/\.omp\/agent\/config\.yml:1:8: invalid YAML.*\(the file is ignored until it is fixed\)/]],
    ["a mis-indented line in config.yml", (home) => writeAgentFile(home, "config.yml", "model: anthropic/claude-opus-5-5\n thinking: high\n"), [/config\.yml:2:2: invalid YAML/]],
    [
      "an unknown key in config.yml",
      (home) => writeAgentFile(home, "config.yml", "modle: sonnet\n"),
      [/config\.yml: modle: unknown key \(did you mean model\?\); allowed here: .*model.* \(ignored; `omp config unset modle` removes it\)/],
    ],
    ["a bad value in config.yml", (home) => writeAgentFile(home, "config.yml", "compaction:\n  enabled: maybe\n"), [/config\.yml: compaction\.enabled: got "maybe", expected true or false \(ignored/]],
    [
      "a bad value in the project's .omp/config.yml",
      (_home, repo) => (mkdirSync(join(repo, ".omp")), writeFileSync(join(repo, ".omp", "config.yml"), "approvalMode: sometimes\n")),
      [/\.omp\/config\.yml: approvalMode: got "sometimes", expected one of always-ask, write, yolo \(ignored; `omp config unset --project approvalMode` removes it\)/],
    ],
  ];

  test.each(warnings)("%s: a warning naming the file, the key and the fix; the run goes on", async (_name, setup, patterns) => {
    const { home, repo } = workspace();
    setup(home, repo);
    standin.setScript([{ text: "still here" }]);
    const result = await runAgent(["-p", "hello"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("still here\n");
    for (const pattern of patterns) expect(result.stderr).toMatch(pattern);
    expect(result.stderr).not.toContain("    at ");
  });

  test("no key at all for any provider names the variables to set", async () => {
    const { home, repo } = workspace();
    const result = await runAgent(["-p", "hello"], { home, cwd: repo, env: { ANTHROPIC_BASE_URL: standin.url } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    expect(sessionFiles(home)).toEqual([]);
  });
});

describe("providers and keys", () => {
  test("a keyless OpenAI-compatible provider from models.yml is reached at its baseUrl with no key", async () => {
    const { home, repo } = workspace();
    writeAgentFile(home, "models.yml", `providers:\n  mylocal:\n    baseUrl: ${standin.url}/v1\n    api: openai-completions\n    auth: none\n    models:\n      - id: test-model\n`);
    standin.setScript([{ toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }, { text: "Local model answer." }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", "mylocal/test-model", "hi"], { home, cwd: repo });
    expect(result.stderr).not.toContain("omp:");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Local model answer.\n");
    const [first, second] = modelRequests(standin);
    expect(first!.path).toBe("/v1/chat/completions");
    expect(first!.body.model).toBe("test-model");
    expect(first!.headers.authorization).toBeUndefined();
    expect(toolResultsOf("openai-completions", second!.body)[0]!.text).toContain("# demo");
  });

  test.each(cases)("%s: the key goes in the provider's own header and nowhere on disk, even when a tool prints it", async (_api, provider) => {
    const { home, repo } = workspace();
    const keyVar = Object.keys(provider.env("x")).find((name) => name.endsWith("_API_KEY"))!;
    // The model's commands no longer see the key in their environment (issue 21); one that got it
    // anyway prints it, once in a short output and once in one long enough to be cut and saved in
    // full as an artifact.
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: `echo "env: [$${keyVar}]"; echo "short: ${provider.key}"` } }] },
      { toolCalls: [{ name: "bash", arguments: { command: `echo "long: ${provider.key}"; seq 1 3000; echo "end: ${provider.key}"` } }] },
      { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "the model wrote this file itself" } }] },
      { text: "Done." },
    ]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "show me the env"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    const [first] = modelRequests(standin);
    const sent = { ...first!.headers, ...first!.query };
    expect(Object.values(sent).some((value) => value.includes(provider.key))).toBe(true);
    // The provider received the tool output as it was (it is the user's own machine talking to its provider) ...
    expect(toolResultsOf(provider.api, modelRequests(standin)[1]!.body)[0]!.text).toContain(provider.key);
    expect(toolResultsOf(provider.api, modelRequests(standin)[1]!.body)[0]!.text).toContain("env: []");
    // ... but omp kept none of it: not in the session, not in the saved full output.
    const artifacts = walk(home).filter((path) => path.endsWith(".log"));
    expect(artifacts.length).toBe(1);
    const artifact = readFileSync(artifacts[0]!, "utf8");
    // (Booleans: a failure must not print the key-laden file.)
    expect(artifact.startsWith("long: [REDACTED]\n1\n2\n")).toBe(true);
    expect(artifact.endsWith("\n3000\nend: [REDACTED]\n")).toBe(true);
    const [session] = sessionFiles(home);
    expect(readFileSync(session!, "utf8").includes("short: [REDACTED]")).toBe(true);
    expect(filesContaining([home, repo], provider.key)).toEqual([]);
  });

  test("another provider's key in the environment is kept off the disk too", async () => {
    const { home, repo } = workspace();
    const other = `other_provider_key_${crypto.randomUUID()}`;
    // Not in the command's environment (issue 21), and redacted when it shows up anyway.
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: `env | grep -c API_KEY; echo ${other}` } }] }, { text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", anthropic.model, "x"], { home, cwd: repo, env: { ...anthropic.env(standin.url), MISTRAL_API_KEY: other } });
    expect(result.code).toBe(0);
    expect(toolResultsOf(anthropic.api, modelRequests(standin)[1]!.body)[0]!.text).toStartWith("0\n");
    expect(toolResultsOf(anthropic.api, modelRequests(standin)[1]!.body)[0]!.text).toContain(other);
    expect(filesContaining([home, repo], other)).toEqual([]);
    expect(filesContaining([home, repo], anthropic.key)).toEqual([]);
  });

  test("--api-key is used for the request and kept off the disk", async () => {
    const { home, repo } = workspace();
    const key = `cli_key_${crypto.randomUUID()}`;
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--api-key", key, "--model", "anthropic/claude-sonnet-5-5", `remember ${key}`], {
      home,
      cwd: repo,
      env: { ANTHROPIC_BASE_URL: standin.url },
    });
    expect(result.code).toBe(0);
    expect(modelRequests(standin)[0]!.headers["x-api-key"]).toBe(key);
    expect(filesContaining([home, repo], key)).toEqual([]);
    expect(readFileSync(sessionFiles(home)[0]!, "utf8")).toContain("remember [REDACTED]");
  });
});

describe("config files through the validated-config cache", () => {
  const cacheFile = (home: string) => join(home, ".omp", "agent", "cache", "config.json");

  /** One run with the config below; what the stand-in received. */
  async function runWithConfig(home: string, repo: string) {
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "hi"], { home, cwd: repo });
    expect(result.stderr).not.toContain("omp:");
    expect(result.code).toBe(0);
    const [request] = modelRequests(standin);
    return {
      path: request!.path,
      model: request!.body.model,
      header: request!.headers["x-config"],
      tools: toolNamesOf("openai-completions", request!.body).sort(),
      maxTokens: request!.body.max_tokens ?? request!.body.max_completion_tokens,
    };
  }

  function writeConfig(home: string, repo: string, version: "one" | "two") {
    const id = version === "one" ? "test-model" : "other-model";
    writeAgentFile(
      home,
      "models.yml",
      `providers:\n  mylocal:\n    baseUrl: ${standin.url}/v1\n    api: openai-completions\n    auth: none\n    headers: { X-Config: ${version} }\n    models:\n      - id: ${id}\n        maxTokens: ${version === "one" ? 1111 : 2222}\n`,
    );
    writeAgentFile(home, "config.yml", `model: mylocal/${id}\ntools:\n  disabled: ${version === "one" ? "[bash, todo]" : "[read]"}\n`);
    mkdirSync(join(repo, ".omp"), { recursive: true });
    writeFileSync(join(repo, ".omp", "config.yml"), `tools:\n  disabled: ${version === "one" ? "[bash, todo, find]" : "[read, ls]"}\n`);
  }

  test("the second run (a cache hit) honours config.yml and models.yml exactly as the first; an edit takes effect at once", async () => {
    const { home, repo } = workspace();
    writeConfig(home, repo, "one");
    const first = await runWithConfig(home, repo);
    expect(first).toEqual({
      path: "/v1/chat/completions",
      model: "test-model",
      header: "one",
      tools: ["call_tool", "edit", "grep", "read", "search_tool_bm25", "task", "write"],
      maxTokens: 1111,
    });
    const cache = readFileSync(cacheFile(home), "utf8");
    expect(Object.keys(JSON.parse(cache).files).sort()).toEqual(
      [`settings:${join(home, ".omp", "agent", "config.yml")}`, `models:${join(home, ".omp", "agent", "models.yml")}`, `settings:${join(repo, ".omp", "config.yml")}`].sort(),
    );
    expect(statSync(cacheFile(home)).mode & 0o777).toBe(0o600);
    const written = statSync(cacheFile(home)).mtimeMs;

    // Nothing changed: every file is a hit, so the cache is not rewritten.
    expect(await runWithConfig(home, repo)).toEqual(first);
    expect(readFileSync(cacheFile(home), "utf8")).toBe(cache);
    expect(statSync(cacheFile(home)).mtimeMs).toBe(written);

    writeConfig(home, repo, "two");
    const third = await runWithConfig(home, repo);
    expect(third).toEqual({
      path: "/v1/chat/completions",
      model: "other-model",
      header: "two",
      tools: ["bash", "call_tool", "edit", "find", "grep", "search_tool_bm25", "task", "todo", "write"],
      maxTokens: 2222,
    });
    expect(await runWithConfig(home, repo)).toEqual(third);
  });

  test("a cache that cannot be written changes nothing but speed", async () => {
    const { home, repo } = workspace();
    writeConfig(home, repo, "one");
    writeFileSync(join(home, ".omp", "agent", "cache"), "a file where the cache dir belongs");
    const first = await runWithConfig(home, repo);
    expect(first.model).toBe("test-model");
    expect(await runWithConfig(home, repo)).toEqual(first);
    expect(readFileSync(join(home, ".omp", "agent", "cache"), "utf8")).toBe("a file where the cache dir belongs");
  });
});

describe("tools and approval", () => {
  test.each(cases)("%s: --approval-mode write without an approver denies bash and edit; the model reads why", async (_api, provider) => {
    const { home, repo } = workspace();
    // GPT models edit with apply_patch (core/tools/edit/mode.ts), the others with edit.
    const editName = provider.api === "openai-responses" ? "apply_patch" : "edit";
    const editArguments = editName === "apply_patch" ? { input: "*** Begin Patch\n*** Update File: src/math.sh\n@@\n-x\n+y\n*** End Patch" } : { path: "src/math.sh", edits: [{ oldText: "-", newText: "+" }] };
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "touch created-by-bash.txt" } }] },
      { toolCalls: [{ name: editName, arguments: editArguments }] },
      { toolCalls: [{ name: "read", arguments: { path: "src/math.sh" } }] },
      { text: "I could not change anything." },
    ]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--approval-mode", "write", "--model", provider.model, "fix it"], { home, cwd: repo, env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("I could not change anything.\n");
    expect(result.stderr).toContain("✗ bash failed");
    expect(walk(repo).some((path) => path.endsWith("created-by-bash.txt"))).toBe(false);
    expect(readFileSync(join(repo, "src/math.sh"), "utf8")).toContain("$1 - $2");
    const results = toolResultsOf(provider.api, modelRequests(standin)[3]!.body);
    expect(results.length).toBe(3);
    for (const [i, name] of ["bash", editName].entries()) {
      expect(results[i]!.text).toContain(`${name} was not run: it needs approval under --approval-mode write`);
      expect(results[i]!.text).toContain("--approval-mode yolo");
      if (provider.api !== "openai-completions" && provider.api !== "openai-responses") expect(results[i]!.isError).toBe(true);
    }
    // Reading needs no approval in this mode.
    expect(results[2]!.text).toContain("$1 - $2");
  });

  test.each(cases)("%s: --tools read,grep offers only those; --no-tools offers none", async (_api, provider) => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "a" }, { text: "b" }, { text: "c" }]);
    standin.requests.length = 0;
    const env = provider.env(standin.url);
    expect((await runAgent(["-p", "--model", provider.model, "x"], { home, cwd: repo, env })).code).toBe(0);
    expect((await runAgent(["-p", "--tools", "read,grep", "--model", provider.model, "x"], { home, cwd: repo, env })).code).toBe(0);
    expect((await runAgent(["-p", "--no-tools", "--model", provider.model, "x"], { home, cwd: repo, env })).code).toBe(0);
    const [all, some, none] = modelRequests(standin).map((r) => r.body);
    const edit = provider.api === "openai-responses" ? "apply_patch" : "edit";
    // The rarely needed ones (eval, ls, job, lsp, ast_grep, ast_edit, web_fetch, …) are found with search_tool_bm25 and run through call_tool (tool-discovery.test.ts).
    expect(toolNamesOf(provider.api, all).sort()).toEqual(["bash", "call_tool", edit, "find", "grep", "read", "search_tool_bm25", "task", "todo", "write"].sort());
    // Named in --tools: sent, nothing deferred.
    expect(toolNamesOf(provider.api, some)).toEqual(["read", "grep"]);
    expect(toolNamesOf(provider.api, none)).toEqual([]);
  });

  test("the tool schemas sent are exactly what the tools' zod schemas say (the binary carries them precomputed)", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    expect((await runAgent(["-p", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) })).code).toBe(0);
    const sent = modelRequests(standin)[0]!.body.tools.map((t: any) => ({ name: t.name, description: t.description, parameters: t.input_schema }));
    // web_search is offered only with a search provider configured (there is none here); ask only where someone can answer (not -p); github only when GitHub is set up, ssh only with hosts.
    // Deferred tools are not sent: search_tool_bm25, after the others, finds them, and call_tool runs them.
    const absent = ["web_search", "ask", "github", "ssh"];
    const builtins = builtinToolDefinitions().filter((definition) => !absent.includes(definition.name) && definition.loadMode !== "discoverable");
    expect(sent.slice(0, -3)).toEqual(builtins.map(defineTool).map(toolSpec));
    expect(sent.at(-3).name).toBe("task");
    expect(sent.at(-3).parameters).toEqual(taskParameters());
    expect(sent.at(-2).name).toBe("search_tool_bm25");
    expect(sent.at(-1)).toEqual({ name: "call_tool", description: expect.stringContaining("search_tool_bm25"), parameters: callToolParameters() });
  });

  test("a call to a tool that was not offered is an error result, not a crash", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "touch nope.txt" } }] }, { text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--tools", "read", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    const [res] = toolResultsOf(anthropic.api, modelRequests(standin)[1]!.body);
    expect(res!.isError).toBe(true);
    expect(res!.text).toContain("There is no tool named bash. Available tools: read.");
    expect(walk(repo).some((path) => path.endsWith("nope.txt"))).toBe(false);
  });
});

describe.each(cases)("context files over %s", (_api, provider) => {
  test("~/.omp/agent/AGENTS.md, AGENTS.md at the repository root and CLAUDE.md in the subdir reach the system prompt, in that order", async () => {
    const { home, repo } = workspace({
      "AGENTS.md": "ROOT-AGENTS: run ./test.sh before finishing.\n",
      "pkg/CLAUDE.md": "PKG-CLAUDE: this package is written in POSIX sh.\n",
      "pkg/tool.sh": "echo hi\n",
      "README.md": "# demo\n",
    });
    writeAgentFile(home, "AGENTS.md", "USER-AGENTS: answer briefly.\n");
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", provider.model, "hi"], { home, cwd: join(repo, "pkg"), env: provider.env(standin.url) });
    expect(result.code).toBe(0);
    const system = systemPromptOf(provider.api, modelRequests(standin)[0]!.body);
    const at = ["USER-AGENTS", "ROOT-AGENTS", "PKG-CLAUDE"].map((marker) => system.indexOf(marker));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(system).toContain(`<file path="${join(repo, "AGENTS.md")}">`);
    expect(system).toContain("Working directory:");
    expect(system).toContain("Git repository:");
  });
});

describe("print mode input and output", () => {
  test("the answer goes to stdout only; progress and retries to stderr", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ status: 503 }, { text: "Checking.", toolCalls: [{ name: "grep", arguments: { pattern: "add" } }] }, { text: "The answer." }]);
    standin.requests.length = 0;
    const result = await runAgent(["-p", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Checking.\nThe answer.\n");
    expect(result.stderr).toContain("→ grep add");
    expect(result.stderr).toContain("retrying in");
    expect(result.stderr).not.toContain("Checking.");
  });

  test("the prompt can come from piped stdin, joined with the arguments", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "a" }, { text: "b" }]);
    standin.requests.length = 0;
    const env = anthropic.env(standin.url);
    expect((await runAgent(["-p", "--model", anthropic.model], { home, cwd: repo, env, stdin: "task from stdin\n" })).code).toBe(0);
    expect((await runAgent(["-p", "--model", anthropic.model, "explain this log:"], { home, cwd: repo, env, stdin: "ERROR: disk full\n" })).code).toBe(0);
    const [first, second] = modelRequests(standin).map((r) => userTextsOf(anthropic.api, r.body));
    expect(first).toEqual(["task from stdin"]);
    expect(second).toEqual(["explain this log:\n\nERROR: disk full"]);
  });

  test("@file arguments attach the file; a missing one is text with a warning (issue 27)", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "reviewed" }]);
    standin.requests.length = 0;
    const env = anthropic.env(standin.url);
    const result = await runAgent(["-p", "--model", anthropic.model, "review", "@src/math.sh"], { home, cwd: repo, env });
    expect(result.code).toBe(0);
    const [text] = userTextsOf(anthropic.api, modelRequests(standin)[0]!.body);
    expect(text).toContain("review");
    expect(text).toContain('<file path="src/math.sh">\nadd() {\n  echo $(( $1 - $2 ))\n}\n');
    standin.setScript([{ text: "reviewed" }]);
    const missing = await runAgent(["-p", "--model", anthropic.model, "review", "@nope.txt"], { home, cwd: repo, env });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain("@nope.txt: no such file");
    expect(userTextsOf(anthropic.api, modelRequests(standin)[1]!.body)[0]).toContain("review @nope.txt");
  });

  test("a reader that goes away (| head) does not break the run: exit 0, the whole answer in the session", async () => {
    const { home, repo } = workspace();
    const answer = "A first part of the answer, a second part, and a third part that nobody reads.";
    standin.setScript([{ text: answer, eventDelayMs: 40 }]);
    const child = spawnOmp(["-p", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) });
    child.stdin.end();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toStartWith("A first");
    await reader.cancel();
    expect(await child.exited).toBe(0);
    const reply = readJsonl(sessionFiles(home)[0]!).find((e) => e.type === "message" && e.message.role === "assistant");
    expect(reply.message.content).toEqual([{ type: "text", text: answer }]);
  });

  test("no prompt at all is a usage error", async () => {
    const { home, repo } = workspace();
    const result = await runAgent(["-p", "--model", anthropic.model], { home, cwd: repo, env: anthropic.env(standin.url), stdin: "" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no prompt");
  });

  test("--no-session leaves no session file", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "ok" }]);
    const result = await runAgent(["-p", "--no-session", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) });
    expect(result.code).toBe(0);
    expect(sessionFiles(home)).toEqual([]);
  });

  test("--session-dir keeps sessions there, and -c finds them there", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "one" }, { text: "two" }]);
    standin.requests.length = 0;
    const env = anthropic.env(standin.url);
    expect((await runAgent(["-p", "--session-dir", "kept", "--model", anthropic.model, "first"], { home, cwd: repo, env })).code).toBe(0);
    const again = await runAgent(["-p", "-c", "--session-dir", "kept", "--model", anthropic.model, "second"], { home, cwd: repo, env });
    expect(again.code).toBe(0);
    // The session dir inside the repository changed its status: the resumed prompt says so first.
    const texts = userTextsOf(anthropic.api, modelRequests(standin)[1]!.body);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe("first");
    expect(texts[1]).toEndWith("</context-update>\nsecond");
    expect(sessionFiles(home)).toEqual([]);
    expect(walk(join(repo, "kept")).filter((path) => path.endsWith(".jsonl")).length).toBe(1);
    const none = await runAgent(["-p", "-c", "--model", anthropic.model, "third"], { home, cwd: repo, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no session to continue");
  });

  test("the session file records the model and every message with ids and parents", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [{ name: "ls", arguments: {} }] }, { text: "ok" }]);
    await runAgent(["-p", "--model", anthropic.model, "x"], { home, cwd: repo, env: anthropic.env(standin.url) });
    const entries = readJsonl(sessionFiles(home)[0]!);
    expect(entries[1]).toMatchObject({ type: "model_change", model: anthropic.model, parentId: null });
    for (let i = 2; i < entries.length; i++) expect(entries[i].parentId).toBe(entries[i - 1].id);
  });
});
