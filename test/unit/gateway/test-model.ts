import type { Model } from "../../../core/ai/model.ts";

/** A model as core/ai describes it, for tests that only need its identity. */
export function testModel(provider: string, api: Model["api"], id: string): Model {
  return {
    id,
    name: id,
    provider,
    api,
    baseUrl: "http://127.0.0.1:1",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 16_000,
  };
}
