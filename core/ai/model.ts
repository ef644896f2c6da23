import type { z } from "zod";
import type { Model as ModelSchema, ModelCost as ModelCostSchema, ThinkingSpec as ThinkingSpecSchema } from "./model-schema.ts";

/**
 * Models and their settings as plain values and types. zod stays out of this module (its schemas
 * are in model-schema.ts): everything on the start-up path imports it, and loading zod there would
 * cost milliseconds before the first request.
 */

export { APIS, type Api } from "./apis/ids.ts";

export type ModelCost = z.output<typeof ModelCostSchema>;
export type Model = z.output<typeof ModelSchema>;
export type ThinkingSpec = z.output<typeof ThinkingSpecSchema>;

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function isThinkingLevel(value: string): value is ThinkingLevel {
  return (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * How a model takes its thinking setting: `budget` is a token count (Anthropic extended thinking,
 * Gemini 2.5's thinkingBudget), `effort` one of the model's named efforts (Anthropic adaptive
 * thinking's output_config.effort, OpenAI reasoning effort, Gemini 3+ thinkingLevel).
 */
export const THINKING_CONTROLS = ["budget", "effort"] as const;

/**
 * How "off" reaches a model: `omit` leaves the setting out (the model does not think unless
 * asked), `disable` says so explicitly (Anthropic `thinking.type: "disabled"`, a zero Gemini
 * budget, OpenAI effort `none`), `between-tools` is the lowest setting of models that take
 * Anthropic's `thinking.type: "between_tools"` instead of disabling, and `never` means thinking
 * cannot be turned off, so "off" asks for the least the model allows.
 */
export const THINKING_OFF = ["omit", "disable", "between-tools", "never"] as const;
