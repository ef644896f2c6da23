import { USAGE_LIMIT_MARK } from "../ai/http/errors.ts";

/**
 * When the usage limit named in a provider error resets (epoch ms), or undefined when the error is
 * not a usage limit that says so (core/ai/http/errors.ts writes the mark).
 */
export function usageLimitReset(message: string): number | undefined {
  const at = message.indexOf(USAGE_LIMIT_MARK);
  if (at < 0) return undefined;
  const until = Date.parse(message.slice(at + USAGE_LIMIT_MARK.length).replace(/\).*$/s, ""));
  return Number.isNaN(until) ? undefined : until;
}

/** Whether a provider error says the key or token itself was refused (`anthropic 401: …`, as core/ai/http/errors.ts words it). */
export function rejectedKey(provider: string, message: string): boolean {
  return message.includes(`${provider} 401:`);
}
