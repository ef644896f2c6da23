// Shared set-up for the provider tests: one model per wire API pointed at the stand-in.
import type { AssistantMessage, Message, ToolCall } from "../../../core/ai/messages.ts";
import type { Api, Model } from "../../../core/ai/model.ts";
import type { AssistantEvent, Context, StreamOptions } from "../../../core/ai/stream.ts";
import { stream } from "../../../core/ai/index.ts";

export const KEY = "sk-test-key-123";

/** USD per million; odd numbers so a wrong token class shows up in the cost. */
export const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** The public APIs; the subscription backends built on them are covered in test/e2e/subscriptions.test.ts. */
// Bedrock Converse is reached only through its cloud transport (signed, event-stream framed): tested in test/e2e/cloud-providers.test.ts.
export type PublicApi = Exclude<Api, "openai-codex-responses" | "google-gemini-cli" | "bedrock-converse">;

export interface ApiCase {
  api: PublicApi;
  provider: string;
  /** The model's baseUrl for a stand-in at `url`. */
  base(url: string): string;
  path: string;
  keyHeader: [string, string];
  /** SSE events the stand-in sends before the first content delta. */
  eventsBeforeOutput: number;
  /** Enough events to include the first text delta. */
  eventsThroughFirstText: number;
  /** Whether the wire format streams tool arguments as text in several deltas. */
  streamsArguments: boolean;
  /** Whether the format reports cache writes (Anthropic, and Responses for models that bill them). */
  reportsCacheWrite: boolean;
}

export const API_CASES: ApiCase[] = [
  {
    api: "anthropic-messages",
    provider: "anthropic",
    base: (url) => url,
    path: "/v1/messages",
    keyHeader: ["x-api-key", KEY],
    eventsBeforeOutput: 2,
    eventsThroughFirstText: 4,
    streamsArguments: true,
    reportsCacheWrite: true,
  },
  {
    api: "openai-completions",
    provider: "openai",
    base: (url) => `${url}/v1`,
    path: "/v1/chat/completions",
    keyHeader: ["authorization", `Bearer ${KEY}`],
    eventsBeforeOutput: 1,
    eventsThroughFirstText: 2,
    streamsArguments: true,
    reportsCacheWrite: false,
  },
  {
    api: "openai-responses",
    provider: "openai",
    base: (url) => `${url}/v1`,
    path: "/v1/responses",
    keyHeader: ["authorization", `Bearer ${KEY}`],
    eventsBeforeOutput: 2,
    eventsThroughFirstText: 5,
    streamsArguments: true,
    reportsCacheWrite: true,
  },
  {
    api: "google-generative-ai",
    provider: "google",
    base: (url) => url,
    path: "/v1beta/models/test-model:streamGenerateContent",
    keyHeader: ["x-goog-api-key", KEY],
    eventsBeforeOutput: 0,
    eventsThroughFirstText: 1,
    streamsArguments: false,
    reportsCacheWrite: false,
  },
];

export function modelFor(c: ApiCase, url: string, overrides: Partial<Model> = {}): Model {
  return {
    id: "test-model",
    name: "Test Model",
    provider: c.provider,
    api: c.api,
    baseUrl: c.base(url),
    reasoning: true,
    input: ["text", "image"],
    cost: PRICES,
    contextWindow: 100_000,
    maxTokens: 32_000,
    ...overrides,
  };
}

export const TOOLS: Context["tools"] = [
  {
    name: "read",
    description: "Read a file",
    parameters: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  },
  {
    name: "grep",
    description: "Search files",
    parameters: { type: "object", properties: { pattern: { type: "string" }, limit: { type: "integer" } }, required: ["pattern"], additionalProperties: false },
  },
];

export function user(text: string): Message {
  return { role: "user", content: text, timestamp: Date.now() };
}

export function context(messages: Message[] = [user("Hello")]): Context {
  return { systemPrompt: "You are a test assistant.", messages, tools: TOOLS };
}

export interface Run {
  events: AssistantEvent[];
  final: AssistantMessage;
}

export async function run(model: Model, ctx: Context, options: StreamOptions = {}): Promise<Run> {
  const events: AssistantEvent[] = [];
  let final: AssistantMessage | undefined;
  for await (const event of stream(model, ctx, { apiKey: KEY, ...options })) {
    events.push(event);
    if (event.type === "done" || event.type === "error") final = event.message;
  }
  if (!final) throw new Error("stream ended without done or error");
  return { events, final };
}

export function toolCalls(message: AssistantMessage): ToolCall[] {
  return message.content.filter((c): c is ToolCall => c.type === "toolCall");
}

export function textOf(message: AssistantMessage): string {
  return message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
