import type { Cost, Usage } from "./messages.ts";
import type { ModelCost } from "./model.ts";

/** Token counts as the adapters normalise them: `input` excludes cache reads and writes. */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Dollars for the tokens at the model's prices, which are per million tokens. */
export function calculateCost(prices: ModelCost, tokens: TokenCounts): Cost {
  const input = (tokens.input * prices.input) / 1e6;
  const output = (tokens.output * prices.output) / 1e6;
  const cacheRead = (tokens.cacheRead * prices.cacheRead) / 1e6;
  const cacheWrite = (tokens.cacheWrite * prices.cacheWrite) / 1e6;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}

export function usageFor(prices: ModelCost, tokens: TokenCounts): Usage {
  return {
    ...tokens,
    totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite,
    cost: calculateCost(prices, tokens),
  };
}

/** Sums usages, e.g. every assistant message of a session; costs add as priced at the time. */
export function addUsage(...usages: Usage[]): Usage {
  const sum: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  for (const u of usages) {
    sum.input += u.input;
    sum.output += u.output;
    sum.cacheRead += u.cacheRead;
    sum.cacheWrite += u.cacheWrite;
    sum.totalTokens += u.totalTokens;
    sum.cost.input += u.cost.input;
    sum.cost.output += u.cost.output;
    sum.cost.cacheRead += u.cost.cacheRead;
    sum.cost.cacheWrite += u.cost.cacheWrite;
    sum.cost.total += u.cost.total;
  }
  return sum;
}
