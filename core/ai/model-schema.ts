import { z } from "zod";
import { APIS, THINKING_LEVELS } from "./model.ts";

/**
 * The zod schemas behind the model types in model.ts. Only what validates input (models.yml,
 * sessions, rpc commands) loads this module; the start-up path uses model.ts alone.
 */

export const Api = z.enum(APIS);

export const ModelCost = z.object({
  /** US dollars per million tokens. */
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().default(0),
  cacheWrite: z.number().nonnegative().default(0),
});

export const Model = z.object({
  /** The id sent to the provider. */
  id: z.string(),
  name: z.string(),
  /** Provider id: `anthropic`, `openai`, `google`, `openrouter`, `ollama`, or a models.yml key. */
  provider: z.string(),
  api: Api,
  /** Without a trailing slash; adapters append their paths (`/v1/messages`, `/chat/completions`, ...). */
  baseUrl: z.string(),
  reasoning: z.boolean().default(false),
  input: z.array(z.enum(["text", "image"])).default(["text"]),
  cost: ModelCost.default({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
  contextWindow: z.number().int().positive(),
  maxTokens: z.number().int().positive(),
  headers: z.record(z.string(), z.string()).optional(),
});

export const ThinkingLevel = z.enum(THINKING_LEVELS);
