import type { z } from "zod";
import type { Model as ModelSchema, ModelCost as ModelCostSchema } from "./model-schema.ts";

/**
 * Models and their settings as plain values and types. zod stays out of this module (its schemas
 * are in model-schema.ts): everything on the start-up path imports it, and loading zod there would
 * cost milliseconds before the first request.
 */

/** The wire APIs omp speaks. OpenAI-compatible services use `openai-completions`. */
export const APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"] as const;
export type Api = (typeof APIS)[number];

export type ModelCost = z.output<typeof ModelCostSchema>;
export type Model = z.output<typeof ModelSchema>;

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function isThinkingLevel(value: string): value is ThinkingLevel {
  return (THINKING_LEVELS as readonly string[]).includes(value);
}
