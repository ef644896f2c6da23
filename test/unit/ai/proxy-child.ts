// Run by proxy.test.ts in a child process, so HTTP_PROXY applies to this process only.
import { complete } from "../../../core/ai/index.ts";

const url = process.env.STANDIN_URL!;
const message = await complete(
  { id: "m", name: "m", provider: "openai-compatible", api: "openai-completions", baseUrl: `${url}/v1`, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 },
  { systemPrompt: "", messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [] },
  { apiKey: "k", maxRetries: 0 },
);
console.log(JSON.stringify({ stopReason: message.stopReason, content: message.content, errorMessage: message.errorMessage }));
