// Model roles (issue 29.3) on the compiled binary: the smol role's model, a models.yml provider
// served by its own stand-in, writes the session title and the compaction summary and runs a
// subagent that names no model, while the conversation stays on the session's model; roles come
// from --smol, config.yml or models.yml; an unusable smol model is said and the default serves;
// --models scopes rpc's cycle_model.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, readJsonl, runAgent, sessionFiles, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";
import { startStandin } from "../support/standin/index.ts";

const main = await agentTestFile();
const smol = await startStandin();
afterAll(() => smol.close());

const MODEL = "anthropic/claude-opus-5-5";
const SMOL_KEY = `smol-key-${crypto.randomUUID().slice(0, 8)}`;
const env = () => ({ ANTHROPIC_BASE_URL: main.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`, SMOL_BOX_KEY: SMOL_KEY });

/** A home whose models.yml has the `smolbox` provider (the smol stand-in), plus `extra` lines. */
function homeWithSmolbox(extra: string[] = [], config?: string) {
  const ws = workspace();
  const dir = join(ws.home, ".omp", "agent");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "models.yml"),
    ["providers:", "  smolbox:", `    baseUrl: ${smol.url}/v1`, "    apiKey: SMOL_BOX_KEY", "    api: openai-completions", "    models:", "      - id: tiny", "        contextWindow: 64000", ...extra, ""].join("\n"),
  );
  if (config) writeFileSync(join(dir, "config.yml"), config);
  return ws;
}

const posts = (standin: typeof main) => standin.requests.filter((r) => r.method === "POST");
const bodyText = (r: { body: unknown }) => JSON.stringify(r.body);

async function turn(rpc: RpcProcess, message: string): Promise<any> {
  const mark = rpc.mark;
  await rpc.send({ type: "prompt", message });
  return rpc.waitFrame((f) => f.type === "agent_end", mark);
}

describe("model roles", () => {
  test("--smol: the title, the compaction summary and the handoff brief are asked of the smol model, the conversation of the session's", async () => {
    const { home, repo } = homeWithSmolbox([], "compaction:\n  keepRecentTokens: 5\n");
    main.setScript([{ text: "FIRST-ANSWER" }, { text: "SECOND-ANSWER" }]);
    smol.setScript([{ text: "Fix the adder" }, { text: "SMOL-SUMMARY of the work" }, { text: "SMOL-BRIEF" }]);
    const mainBefore = posts(main).length;
    const smolBefore = posts(smol).length;
    const rpc = new RpcProcess(["--model", MODEL, "--smol", "smolbox/tiny"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      await turn(rpc, "the adder in src/math.sh subtracts; make it add");
      await turn(rpc, "and add a test");
      expect((await rpc.send({ type: "compact" })).data.compacted).toBe(true);
      const file = (await rpc.send({ type: "get_state" })).data.sessionFile;
      const entries = readJsonl(file);
      expect(entries.filter((e) => e.type === "custom" && e.customType === "omp.session_name").map((e) => e.data.name)).toEqual(["Fix the adder"]);
      expect(entries.find((e) => e.type === "compaction")?.summary).toBe("SMOL-SUMMARY of the work");
      expect((await rpc.send({ type: "handoff" })).data.document).toBe("SMOL-BRIEF");
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const smolRequests = posts(smol).slice(smolBefore);
    expect(smolRequests).toHaveLength(3);
    for (const request of smolRequests) {
      expect(request.path).toBe("/v1/chat/completions");
      expect(request.headers.authorization).toBe(`Bearer ${SMOL_KEY}`);
      expect(request.body.model).toBe("tiny");
    }
    expect(bodyText(smolRequests[0]!)).toContain("You name coding sessions");
    expect(bodyText(smolRequests[0]!)).toContain("the adder in src/math.sh subtracts");
    expect(bodyText(smolRequests[1]!)).toContain("Summarise the conversation above");
    expect(bodyText(smolRequests[2]!)).toContain("Write a handoff brief");
    // The session's model had the two turns and nothing else: no title, no summary.
    const mainRequests = posts(main).slice(mainBefore);
    expect(mainRequests).toHaveLength(2);
    for (const request of mainRequests) {
      expect(request.body.model).toBe("claude-opus-5-5");
      expect(bodyText(request)).not.toContain("You name coding sessions");
      expect(bodyText(request)).not.toContain("Summarise the conversation above");
    }
    // Listings show the smol model's title.
    const listed = await runAgent(["-r"], { home, cwd: repo, env: env() });
    expect(listed.stdout).toContain("Fix the adder");
  });

  test("models.yml's modelRoles: a subagent whose definition names no model runs on smol, and the title too; config.yml's role wins over it", async () => {
    const { home, repo } = homeWithSmolbox(["modelRoles:", "  smol: smolbox/tiny"]);
    main.setScript([{ toolCalls: [{ id: "t1", name: "task", arguments: { subagent_type: "general-purpose", description: "look", prompt: "look around the repo" } }] }, { text: "MAIN-DONE" }]);
    smol.setScript([{ text: "Look around" }, { text: "SUBAGENT-REPORT" }]);
    const smolBefore = posts(smol).length;
    const run = await runAgent(["-p", "--model", MODEL, "look around"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "MAIN-DONE\n" });
    const smolRequests = posts(smol).slice(smolBefore);
    expect(smolRequests.map((r) => r.body.model)).toEqual(["tiny", "tiny"]);
    const subagent = smolRequests.find((r) => bodyText(r).includes("look around the repo"));
    expect(subagent).toBeDefined();
    expect(bodyText(subagent!)).not.toContain("You name coding sessions");
    const toolResult = bodyText(posts(main).at(-1)!);
    expect(toolResult).toContain("SUBAGENT-REPORT");
    const session = sessionFiles(home).map(readJsonl).find((entries) => entries[0].parentSession === undefined)!;
    expect(session.find((e) => e.type === "custom" && e.customType === "omp.session_name")?.data.name).toBe("Look around");

    // config.yml names another smol model: it wins over models.yml's, and being unknown, is said and passed over.
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "modelRoles:\n  smol: smolbox/no-such-model\n");
    main.setScript([{ text: "PLAIN" }]);
    const before = posts(smol).length;
    const fallback = await runAgent(["-p", "--model", MODEL, "hello"], { home, cwd: repo, env: env() });
    expect({ code: fallback.code, stdout: fallback.stdout }).toEqual({ code: 0, stdout: "PLAIN\n" });
    expect(fallback.stderr).toContain("modelRoles.smol (smolbox/no-such-model) is not usable");
    expect(fallback.stderr).toContain("using anthropic/claude-opus-5-5");
    expect(posts(smol).length).toBe(before);
  });

  test("modelRoles.default is the model when none is given; --model still wins", async () => {
    const { home, repo } = homeWithSmolbox([], "modelRoles:\n  default: smolbox/tiny\n");
    smol.setScript([{ text: "FROM-DEFAULT-ROLE" }]);
    const run = await runAgent(["-p", "--no-session", "hi"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "FROM-DEFAULT-ROLE\n" });
    main.setScript([{ text: "FROM-FLAG" }]);
    const flagged = await runAgent(["-p", "--no-session", "--model", MODEL, "hi"], { home, cwd: repo, env: env() });
    expect(flagged.stdout).toBe("FROM-FLAG\n");
  });

  test("a name the user gives during the first run is kept: the smol model's title does not replace it", async () => {
    const { home, repo } = homeWithSmolbox([]);
    main.setScript([{ text: "SLOW-ANSWER", delayMs: 600 }]);
    smol.setScript([{ text: "Generated title" }]);
    const rpc = new RpcProcess(["--model", MODEL, "--smol", "smolbox/tiny"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      await rpc.send({ type: "prompt", message: "a first prompt" });
      expect((await rpc.send({ type: "set_session_name", name: "My own name" })).success).toBe(true);
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const file = (await rpc.send({ type: "get_state" })).data.sessionFile;
      const names = readJsonl(file).filter((e) => e.type === "custom" && e.customType === "omp.session_name").map((e) => e.data.name);
      expect(names).toEqual(["My own name"]);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });

  test("pi/<role> (and omp/<role>) in --model names the role's model, as the original omp's aliases do; an unconfigured role is an unknown model", async () => {
    const { home, repo } = homeWithSmolbox([], `modelRoles:\n  slow: smolbox/tiny\n  review: pi/slow\n`);
    smol.setScript([{ text: "FROM-SLOW" }, { text: "FROM-REVIEW" }]);
    const slow = await runAgent(["-p", "--no-session", "--model", "pi/slow", "hi"], { home, cwd: repo, env: env() });
    expect({ code: slow.code, stdout: slow.stdout }).toEqual({ code: 0, stdout: "FROM-SLOW\n" });
    const review = await runAgent(["-p", "--no-session", "--model", "omp/review", "hi"], { home, cwd: repo, env: env() });
    expect({ code: review.code, stdout: review.stdout }).toEqual({ code: 0, stdout: "FROM-REVIEW\n" });
    const unknown = await runAgent(["-p", "--no-session", "--model", "pi/designer", "hi"], { home, cwd: repo, env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("pi/designer");
  });

  test("a smol model without credentials: the run goes on on the default model and says why", async () => {
    const { home, repo } = workspace();
    main.setScript([{ text: "STILL-FINE" }]);
    const run = await runAgent(["-p", "--model", MODEL, "--smol", "openai/gpt-5-mini", "hi"], { home, cwd: repo, env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "STILL-FINE\n" });
    expect(run.stderr).toContain("modelRoles.smol (openai/gpt-5-mini) is not usable");
    expect(run.stderr).toContain("OPENAI_API_KEY");
  });

  test("--models scopes rpc's cycle_model to its models, in order; an unknown one is refused at start", async () => {
    const { home, repo } = homeWithSmolbox();
    const rpc = new RpcProcess(["--model", MODEL, "--models", "claude-opus-5-5,smolbox/tiny"], { home, cwd: repo, env: env() });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const first = await rpc.send({ type: "cycle_model" });
      expect(first.data).toMatchObject({ model: { provider: "smolbox", id: "tiny" }, isScoped: true });
      const second = await rpc.send({ type: "cycle_model" });
      expect(second.data).toMatchObject({ model: { provider: "anthropic", id: "claude-opus-5-5" }, isScoped: true });
    } finally {
      expect(await rpc.close()).toBe(0);
    }
    const bad = await runAgent(["-p", "--model", MODEL, "--models", "opus,nothing-like-this", "hi"], { home, cwd: repo, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown model "nothing-like-this"');
  });
});
