import type { AgentFlags } from "./agent-options.ts";
import { AGENT_OPTIONS } from "./agent-options.ts";
import { parseOptions } from "./option-parser.ts";

/**
 * Words that commander takes as a command when they come first. (`help` is not one, since the
 * program has an action of its own, but it is left to commander all the same.)
 */
export const SUBCOMMANDS: ReadonlySet<string> = new Set(["grep", "find", "doctor", "update", "config", "auth", "auth-gateway", "auth-broker", "trust", "ttsr", "models", "plugin", "help", "extensions", "mcp", "acp", "usage", "stats", "commit", "worktree", "wt", "setup", "completions", "ssh", "protocol", "join", "relay"]);

export interface AgentArgv {
  messages: string[];
  flags: AgentFlags;
}

/**
 * The agent command's arguments as commander would hand them to runAgent, parsed without loading
 * commander; undefined leaves them to commander (see parseOptions), as does a subcommand.
 */
export function parseAgentArgv(argv: readonly string[]): AgentArgv | undefined {
  const parsed = parseOptions(AGENT_OPTIONS, argv);
  if (!parsed || (parsed.operands.length > 0 && SUBCOMMANDS.has(parsed.operands[0]!))) return undefined;
  return { messages: parsed.operands, flags: parsed.flags as AgentFlags };
}
