/**
 * Tool names as the model sees them: `mcp__<server>__<tool>`, Claude Code's form, so hook
 * matchers and permission rules written for it match. Providers accept only `[A-Za-z0-9_-]` and
 * at most 64 characters; a name that has to change to fit gets a short hash of the original, so
 * two tools that differ only in what was replaced or cut still get different names.
 */

export const MAX_TOOL_NAME = 64;
const HASH_CHARS = 6;

const sanitize = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, "_");

function shortHash(text: string): string {
  return Bun.hash.wyhash(text).toString(36).slice(-HASH_CHARS).padStart(HASH_CHARS, "0");
}

export function mcpToolName(server: string, tool: string, prefix = "mcp"): string {
  const exact = `${prefix}__${server}__${tool}`;
  const clean = sanitize(exact);
  if (clean === exact && clean.length <= MAX_TOOL_NAME) return clean;
  const hash = shortHash(`${server}\u0000${tool}`);
  return `${clean.slice(0, MAX_TOOL_NAME - HASH_CHARS - 1)}_${hash}`;
}
