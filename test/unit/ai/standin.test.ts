// The stand-in's own contract: what tests and benchmarks rely on.
import { expect, test } from "bun:test";
import { complete } from "../../../core/ai/index.ts";
import { startStandin } from "../../support/standin/index.ts";
import { API_CASES, KEY, context, modelFor, textOf } from "./harness.ts";

test("an exhausted script answers in the provider's error shape, without retries", async () => {
  const standin = await startStandin({ script: [] });
  try {
    const message = await complete(modelFor(API_CASES[0]!, standin.url), context(), { apiKey: KEY });
    expect(message.errorMessage).toBe("anthropic 400: stand-in: the script has no turn left for POST /v1/messages (standin_script_exhausted)");
    expect(standin.requests).toHaveLength(1);
  } finally {
    await standin.close();
  }
});

test("fast loop mode replays the script for benchmarks", async () => {
  const standin = await startStandin({ script: [{ text: "one" }, { text: "two" }], loop: true, fast: true });
  try {
    const texts: string[] = [];
    for (const c of API_CASES) {
      for (let i = 0; i < 2; i++) texts.push(textOf(await complete(modelFor(c, standin.url), context(), { apiKey: KEY })));
    }
    expect(texts).toEqual(["one", "two", "one", "two", "one", "two", "one", "two"]);
    expect(new Set(standin.requests.map((r) => r.format))).toEqual(new Set(["anthropic", "openai-completions", "openai-responses", "google"]));
  } finally {
    await standin.close();
  }
});

test("unknown endpoints are 404s and are recorded", async () => {
  const standin = await startStandin();
  try {
    const response = await fetch(`${standin.url}/v2/nothing`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(standin.requests[0]).toMatchObject({ method: "POST", path: "/v2/nothing", body: {} });
  } finally {
    await standin.close();
  }
});
