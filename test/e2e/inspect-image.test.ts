// inspect_image on the compiled omp: the image (read through the path policy) and the question go
// to a vision-capable model — the vision role's, a models.yml provider served by its own
// stand-in — and only its answer comes back to the session's text-only model; without a vision
// model, or for a file that is not an image, the model is told what to configure or fix.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { startStandin } from "../support/standin/index.ts";

const main = await agentTestFile();
const eye = await startStandin();
afterAll(() => eye.close());
const PNG = readFileSync(join(import.meta.dir, "..", "fixtures", "documents", "pixel.png"));

/** A home whose session model (`textbox/plain`) takes text only; `vision` adds the `eyebox/eye` model that takes images. */
function setup(roles: string) {
  const ws = workspace();
  const dir = join(ws.home, ".omp", "agent");
  mkdirSync(dir, { recursive: true });
  const provider = (name: string, url: string, model: string, input: string) => [`  ${name}:`, `    baseUrl: ${url}/v1`, "    apiKey: BOX_KEY", "    api: openai-completions", "    models:", `      - id: ${model}`, "        contextWindow: 64000", `        input: ${input}`];
  writeFileSync(join(dir, "models.yml"), ["providers:", ...provider("textbox", main.url, "plain", "[text]"), ...provider("eyebox", eye.url, "eye", "[text, image]"), roles, ""].join("\n"));
  writeFileSync(join(ws.repo, "shot.png"), PNG);
  writeFileSync(join(ws.repo, "notes.png"), "not an image at all");
  mkdirSync(join(ws.home, ".ssh"), { recursive: true });
  writeFileSync(join(ws.home, ".ssh", "id.png"), PNG);
  return ws;
}

async function call(ws: { home: string; repo: string }, args: Record<string, unknown>) {
  main.setScript([{ toolCalls: [{ name: "inspect_image", arguments: args }] }, { text: "done" }]);
  main.requests.length = 0;
  const run = await runAgent(["-p", "--model", "textbox/plain", "go"], { home: ws.home, cwd: ws.repo, env: { BOX_KEY: "box-key" } });
  expect(run.stderr).not.toContain("rror:");
  return toolResultsOf("openai-completions", modelRequests(main)[1]!.body).at(-1)!;
}

describe("inspect_image", () => {
  test("the image and the question go to the vision role's model; its answer is the result, the image never reaches the session's model", async () => {
    const ws = setup("modelRoles:\n  vision: eyebox/eye");
    eye.setScript([{ text: "A single red pixel on white." }]);
    eye.requests.length = 0;
    const result = await call(ws, { path: "shot.png", question: "What colour is the pixel?" });
    expect(result.text).toBe("A single red pixel on white.");
    const asked = modelRequests(eye);
    expect(asked).toHaveLength(1);
    const parts = asked[0]!.body.messages.at(-1).content;
    const image = parts.find((part: any) => part.type === "image_url");
    expect(image.image_url.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(parts.find((part: any) => part.type === "text").text).toBe("What colour is the pixel?");
    expect(JSON.stringify(modelRequests(main).map((request) => request.body))).not.toContain(PNG.toString("base64"));
  }, 120_000);

  test("the session's model, when it takes images, is asked itself, in a request of its own", async () => {
    const ws = setup("");
    main.setScript([{ toolCalls: [{ name: "inspect_image", arguments: { path: "shot.png", question: "What is in it?" } }] }, { text: "It is one red pixel." }, { text: "done" }]);
    main.requests.length = 0;
    const run = await runAgent(["-p", "--model", "anthropic/claude-sonnet-4-5", "go"], { home: ws.home, cwd: ws.repo, env: { ANTHROPIC_BASE_URL: main.url, ANTHROPIC_API_KEY: "sk-ant-test" } });
    expect(run.stderr).not.toContain("rror:");
    const [, asked, next] = modelRequests(main);
    expect(asked!.body.tools ?? []).toEqual([]);
    const [image, question] = asked!.body.messages[0].content;
    expect(image.source).toEqual({ type: "base64", media_type: "image/png", data: PNG.toString("base64") });
    expect(question.text).toBe("What is in it?");
    expect(toolResultsOf("anthropic-messages", next!.body).at(-1)!.text).toBe("It is one red pixel.");
  }, 120_000);

  test("no vision model: a clear error naming modelRoles.vision; not an image, or a denied path: refused before any model call", async () => {
    const none = await call(setup(""), { path: "shot.png", question: "what is it?" });
    expect(none.text).toContain("No vision-capable model is configured");
    expect(none.text).toContain("modelRoles.vision");
    const ws = setup("modelRoles:\n  vision: eyebox/eye");
    eye.requests.length = 0;
    const notImage = await call(ws, { path: "notes.png", question: "what is it?" });
    expect(notImage.text).toContain("only supports PNG, JPEG, GIF, and WEBP");
    const denied = await call(ws, { path: join(ws.home, ".ssh", "id.png"), question: "what is it?" });
    expect(denied.text).toContain(".ssh");
    expect(modelRequests(eye)).toHaveLength(0);
  }, 120_000);
});
