import type { Model, ThinkingLevel, ThinkingSpec } from "./model.ts";

/**
 * Token budgets for models that take one (Anthropic `budget_tokens`, Gemini 2.5 `thinkingBudget`).
 * Anthropic's minimum is 1024.
 */
const BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 4096,
  medium: 10240,
  high: 24576,
  xhigh: 32768,
};

/**
 * Effort names of every provider on one scale, omp's levels among them, so a level can go to the
 * nearest name a model accepts. `none` is how OpenAI says off; `max` is Anthropic's and OpenAI's
 * unbounded level, above anything omp asks for.
 */
const RANK: Record<string, number> = { none: 0, minimal: 1, low: 2, medium: 3, high: 4, xhigh: 5, max: 6 };

/** Accepted by everything that takes a named effort; used when neither the model nor its API names its own. */
const COMMON_EFFORTS = ["low", "medium", "high"];

/** What an adapter puts on the wire for one request; each API spells the modes its own way. */
export type ThinkingRequest =
  | { mode: "omit" }
  | { mode: "disable" }
  | { mode: "between-tools" }
  | { mode: "budget"; tokens: number }
  | { mode: "effort"; effort: string };

/**
 * The thinking a request asks for: the level as the model takes it (its own spec, else the API's
 * `fallback`, whose efforts also stand in for a spec that names none). Models that do not reason
 * get nothing.
 */
export function thinkingRequest(model: Model, level: ThinkingLevel, fallback: ThinkingSpec): ThinkingRequest {
  if (!model.reasoning) return { mode: "omit" };
  const spec = model.thinking ?? fallback;
  const efforts = spec.efforts ?? fallback.efforts ?? COMMON_EFFORTS;
  if (level === "off") {
    if (spec.off !== "never") return { mode: spec.off };
    // Thinking cannot be turned off: ask for the least the model allows.
    return spec.control === "budget" ? { mode: "budget", tokens: BUDGETS.minimal } : { mode: "effort", effort: efforts[0]! };
  }
  if (spec.control === "budget") return { mode: "budget", tokens: BUDGETS[level] };
  return { mode: "effort", effort: nearestEffort(level, efforts) };
}

/** The accepted name closest to `level`; a tie goes to the lesser, since the greater costs more than was asked for. */
export function nearestEffort(level: Exclude<ThinkingLevel, "off">, efforts: readonly string[]): string {
  const wanted = RANK[level]!;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const effort of efforts) {
    const rank = RANK[effort];
    if (rank === undefined) continue;
    const distance = Math.abs(rank - wanted);
    if (distance < bestDistance || (distance === bestDistance && rank < RANK[best!]!)) {
      best = effort;
      bestDistance = distance;
    }
  }
  // Names off the scale (a custom model's own) cannot be ranked; the list's order is all there is.
  return best ?? efforts[Math.min(efforts.length - 1, wanted - 1)]!;
}

/** Whether temperature may be sent: never to models that reject sampling parameters. */
export function takesTemperature(model: Model): boolean {
  return !model.thinking?.fixedSampling;
}
