import { z } from "zod";
import { APIS, THINKING_CONTROLS, THINKING_LEVELS, THINKING_OFF } from "./model.ts";

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

/** See THINKING_CONTROLS and THINKING_OFF in model.ts. */
export const ThinkingSpec = z.object({
  control: z.enum(THINKING_CONTROLS),
  /** For `effort`: the names the model accepts, least thinking first; omp's levels map to the nearest. */
  efforts: z.array(z.string().min(1)).min(1).optional(),
  off: z.enum(THINKING_OFF).default("omit"),
  /** The model rejects temperature and the other sampling parameters. */
  fixedSampling: z.boolean().default(false),
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
  /** Absent: what the model's api has long taken (each adapter says what that is). */
  thinking: ThinkingSpec.optional(),
});

export const ThinkingLevel = z.enum(THINKING_LEVELS);
