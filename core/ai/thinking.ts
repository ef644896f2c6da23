import type { ThinkingLevel } from "./model.ts";

/**
 * Token budgets for providers that take one (Anthropic `budget_tokens`, Gemini `thinkingBudget`).
 * Anthropic's minimum is 1024.
 */
const BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 4096,
  medium: 10240,
  high: 24576,
  xhigh: 32768,
};

export function thinkingBudget(level: ThinkingLevel): number | undefined {
  return level === "off" ? undefined : BUDGETS[level];
}

/** OpenAI-style effort; `xhigh` has no portable equivalent, so it asks for the most that is. */
export function reasoningEffort(level: ThinkingLevel): "minimal" | "low" | "medium" | "high" | undefined {
  if (level === "off") return undefined;
  return level === "xhigh" ? "high" : level;
}
