// The session protocol's generated TypeScript client, used as a user's own program uses it: the
// file `omp protocol client` prints (the same the build put beside dist/omp) is imported by a
// program that typechecks under strict tsc, spawns `dist/omp --mode rpc` against the provider
// stand-in, prompts, reads the streamed events by type, allows an approval, answers the ask
// tool's question, and gets typed errors for bad commands and for a run the provider refused. Every frame it received must parse
// with the protocol's zod schema.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "../../core/protocol/version.ts";
import { RpcFrame } from "../../core/rpc/frames.ts";
import { RPC_RESULTS } from "../../core/rpc/results.ts";
import { agentEnv, agentTestFile, modelRequests, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { OMP, ROOT, cleanEnv, runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-opus-5-5";

/** A user's program: everything it learns it prints as one JSON line, and the events it saw go to events.json. */
const PROGRAM = `import { writeFileSync } from "node:fs";
import { OmpRpcClient, PROTOCOL_VERSION, RpcError, type RpcEvent } from "./omp-rpc-client.ts";

const [omp, model] = process.argv.slice(2) as [string, string];
const client = await OmpRpcClient.start({ command: omp, args: ["--model", model, "--approval-mode", "write"] });
const events: RpcEvent[] = [];
client.on((event) => events.push(event));
const approvals: string[] = [];
client.onUiRequest((request) => {
  approvals.push(request.toolName + ": " + request.message);
  return { value: request.options[0] };
});

const question = client.next("question_request");
const end = client.next("agent_end");
const started = await client.prompt({ message: "make a file, then ask me" });
const asked = await question;
const choice: string = asked.questions[0]!.options![1]!;
const answered = await client.answerQuestion({ questionId: asked.id, answers: [[choice]] });
const finished = await end;
const streamed = events.flatMap((event) => (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta" ? [event.assistantMessageEvent.delta] : [])).join("");
const state = await client.getState();
const messageCount: number = state.messageCount;
const protocolVersion: number = state.protocolVersion;

const errors: unknown[] = [];
const attempts = [
  () => client.setModel({ provider: "nope", modelId: "none" }),
  () => client.request({ type: "no_such_command" } as never),
  // @ts-expect-error a model's provider is a string: the generated method's parameters are typed
  () => client.setModel({ provider: 1, modelId: "none" }),
];
for (const attempt of attempts) {
  try {
    await attempt();
    errors.push(null);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    errors.push({ command: error.command, kind: error.kind, retryable: error.retryable, message: error.message });
  }
}
// A run the provider refuses ends with its failure typed.
const refused = client.next("agent_end");
await client.prompt({ message: "once more" });
const runFailure = (await refused).errorInfo;
// So does a compaction whose summary request is refused.
const compactionEnd = client.next("auto_compaction_end");
const compacted = await client.compact();
const compactionFailure = (await compactionEnd).errorInfo;
// The commands that read the session, and a few that change it, each answered with its result.
const more = {
  get_messages: await client.getMessages(),
  get_last_assistant_text: await client.getLastAssistantText(),
  get_session_stats: await client.getSessionStats(),
  get_tree: await client.getTree(),
  get_branch_messages: await client.getBranchMessages(),
  get_available_commands: await client.getAvailableCommands(),
  get_available_models: await client.getAvailableModels(),
  get_jobs: await client.getJobs(),
  bash: await client.bash({ command: "echo from-the-user" }),
  set_mode: await client.setMode({ mode: "plan" }),
  set_session_name: await client.setSessionName({ name: "protocol test" }),
  cycle_thinking_level: await client.cycleThinkingLevel(),
  fork: await client.fork(),
};
const code = await client.close();
writeFileSync("events.json", JSON.stringify(events));
console.log(JSON.stringify({ clientVersion: PROTOCOL_VERSION, ready: await client.ready, started, answered, choice, stopReason: finished.stopReason, streamed, messageCount, protocolVersion, runFailure, compacted, compactionFailure, state, more, approvals, errors, code }));
`;

describe("the generated rpc client", () => {
  test("a user's program typechecks against it and drives a session: prompt, typed events, an approval and a question answered, typed errors for bad commands, a refused run and a failed compaction", async () => {
    const { home, repo } = workspace();
    const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}` };
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "echo made > made.txt" } }] },
      { toolCalls: [{ name: "ask", arguments: { questions: [{ question: "Which database?", options: ["Postgres", "SQLite"] }] } }] },
      { text: "All done, with SQLite." },
      { status: 401 },
      { status: 401 },
    ]);
    // The client as a user gets it from their omp; the build wrote the same file beside the binary.
    const printed = await runOmp(["protocol", "client"], { home, cwd: repo });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(readFileSync(join(ROOT, "dist", "omp-rpc-client.ts"), "utf8"));
    const schema = JSON.parse((await runOmp(["protocol", "schema"], { home, cwd: repo })).stdout);
    expect(schema["x-protocol-version"]).toBe(PROTOCOL_VERSION);
    expect(schema).toEqual(JSON.parse(readFileSync(join(ROOT, "dist", "omp-protocol.schema.json"), "utf8")));

    const project = tempDir("omp-client-");
    writeFileSync(join(project, "omp-rpc-client.ts"), printed.stdout);
    writeFileSync(join(project, "program.ts"), PROGRAM);
    writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", allowImportingTsExtensions: true, skipLibCheck: true, types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")] },
        files: ["program.ts"],
      }),
    );
    const tsc = Bun.spawnSync([join(ROOT, "node_modules", ".bin", "tsc"), "-p", join(project, "tsconfig.json")], { cwd: project });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.exitCode).toBe(0);

    // Run in the repository, so the omp it starts works there.
    const run = Bun.spawn([process.execPath, join(project, "program.ts"), OMP, MODEL], { cwd: repo, env: cleanEnv(home, agentEnv(env)), stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    // The ready frame stays the original omp's; get_state tells the version, which start() checked.
    expect(result.ready).toEqual({ type: "ready" });
    expect(result.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(result.clientVersion).toBe(PROTOCOL_VERSION);
    expect(result.started).toEqual({ agentInvoked: true });
    expect(result.answered).toEqual({ mode: "default" });
    expect(result.stopReason).toBe("stop");
    expect(result.streamed).toBe("All done, with SQLite.");
    expect(result.approvals).toEqual(["bash: echo made > made.txt"]);
    expect(result.messageCount).toBe(6);
    expect(result.errors).toEqual([
      { command: "set_model", kind: "invalid-input", retryable: false, message: expect.stringContaining("nope/none") },
      { command: "no_such_command", kind: "invalid-command", retryable: false, message: expect.stringContaining('unknown command "no_such_command"') },
      { command: "set_model", kind: "invalid-command", retryable: false, message: expect.stringContaining("provider") },
    ]);
    expect(result.runFailure).toMatchObject({ kind: "auth", retryable: false });
    expect(result.runFailure.message.length).toBeGreaterThan(0);
    expect(result.compacted).toMatchObject({ compacted: false });
    expect(result.compactionFailure).toMatchObject({ kind: "auth", retryable: false });
    expect(result.code).toBe(0);
    // The results are what the protocol says each command answers with.
    const answers: [keyof typeof RPC_RESULTS, unknown][] = [["prompt", result.started], ["answer_question", result.answered], ["get_state", result.state], ["compact", result.compacted], ...Object.entries(result.more as object)] as never;
    // 17 less set_session_name's, which answers with no data (so its key is not in the JSON).
    expect(answers.length).toBe(16);
    expect("set_session_name" in result.more).toBe(false);
    for (const [command, data] of answers) expect([command, RPC_RESULTS[command].safeParse(data).error]).toEqual([command, undefined]);
    expect(result.more.bash).toMatchObject({ output: expect.stringContaining("from-the-user"), isError: false });
    expect(result.more.set_mode).toEqual({ mode: "plan" });
    // The approval let the command run, and the answer reached the model.
    expect(readFileSync(join(repo, "made.txt"), "utf8")).toBe("made\n");
    // The third request (after the bash call's and the question's turns) carries the answer.
    const answer = toolResultsOf("anthropic-messages", modelRequests(standin)[2]!.body).at(-1)!;
    expect(answer.text).toContain("SQLite");
    // A client generated for another version of the protocol refuses this omp and says what to do.
    writeFileSync(join(project, "other-client.ts"), printed.stdout.replace(`export const PROTOCOL_VERSION = ${PROTOCOL_VERSION};`, `export const PROTOCOL_VERSION = ${PROTOCOL_VERSION + 1};`));
    writeFileSync(
      join(project, "other.ts"),
      `import { OmpRpcClient } from "./other-client.ts";\nawait OmpRpcClient.start({ command: process.argv[2], args: ["--model", process.argv[3]!] }).then(() => console.log("started"), (error: Error) => console.log(error.message));\n`,
    );
    const other = Bun.spawn([process.execPath, join(project, "other.ts"), OMP, MODEL], { cwd: repo, env: cleanEnv(home, agentEnv(env)), stdout: "pipe", stderr: "pipe" });
    const [otherOut, otherCode] = await Promise.all([new Response(other.stdout).text(), other.exited]);
    expect(otherCode).toBe(0);
    expect(otherOut.trim()).toBe(`this client speaks omp's protocol version ${PROTOCOL_VERSION + 1}, but omp reports ${PROTOCOL_VERSION}: generate the client again with \`omp protocol client\` of that omp`);
    // Every frame the client handed over is one the protocol describes.
    const events = JSON.parse(readFileSync(join(repo, "events.json"), "utf8")) as unknown[];
    for (const event of events) expect(RpcFrame.safeParse(event).error).toBeUndefined();
    const types = events.map((event) => (event as { type: string }).type);
    expect(types).toEqual(expect.arrayContaining(["agent_start", "turn_start", "message_start", "message_update", "tool_execution_start", "tool_execution_end", "extension_ui_request", "question_request", "turn_end", "agent_end"]));
  });
});
