import type { OptionSpec } from "./option-parser.ts";
import { nonNegativeInt, positiveNumber } from "./option-values.ts";

/** `--mode`'s values. */
export const OUTPUT_MODES = ["text", "json", "rpc", "acp"] as const;

/** The agent command's flags as commander and agent-argv.ts hand them over. */
export interface AgentFlags {
  print?: boolean;
  mode?: string;
  model?: string;
  smol?: string;
  slow?: string;
  plan?: string;
  models?: string;
  apiKey?: string;
  thinking?: string;
  approvalMode?: string;
  sandbox?: string;
  tools?: string | boolean;
  maxTime?: number;
  maxTurns?: number;
  continue?: boolean;
  resume?: string | boolean;
  fork?: string;
  fromClaude?: string | boolean;
  fromCodex?: string | boolean;
  session?: boolean;
  sessionDir?: string;
  config?: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  listModels?: boolean;
  trust?: boolean;
  addDir?: string[];
  allowHost?: string[];
  extension?: string[];
  mcpConfig?: string[];
  profile?: string;
  worktree?: string | boolean;
}

/**
 * The agent command's options: program.ts registers them on commander for help, completions and
 * anything unusual, and agent-argv.ts parses the common invocations without loading commander.
 */
export const AGENT_OPTIONS: readonly OptionSpec[] = [
  { flags: "-p, --print", description: "answer once and exit: the answer on stdout, progress on stderr" },
  { flags: "--mode <mode>", description: "output: text (default), json (NDJSON events), rpc (NDJSON commands on stdin) or acp (Agent Client Protocol, as omp acp)" },
  { flags: "-m, --model <model>", description: "model: provider/id, an id, or a fuzzy name; :level sets thinking" },
  { flags: "--smol <model>", description: "the smol role's model (titles, compaction summaries, subagents without a model); PI_SMOL_MODEL" },
  { flags: "--slow <model>", description: "the slow role's model (hard reasoning); PI_SLOW_MODEL" },
  { flags: "--plan <model>", description: "the plan role's model (plan mode); PI_PLAN_MODEL" },
  { flags: "--models <patterns>", description: "the models Ctrl+P cycles through (comma-separated patterns)" },
  { flags: "--api-key <key>", description: "API key for the chosen model's provider, this run only; visible to other users in `ps`: prefer the provider's env var or `omp auth add`" },
  { flags: "--thinking <level>", description: "off, minimal, low, medium, high or xhigh" },
  { flags: "--approval-mode <mode>", description: "always-ask, write or yolo: which tool calls need approval; plan or auto-accept: start in that session mode" },
  { flags: "--sandbox <mode>", description: "workspace-write (default), read-only or off: what the model's commands may touch" },
  { flags: "--tools <names>", description: "only these tools (comma-separated)" },
  { flags: "--no-tools", description: "no tools at all" },
  { flags: "--max-time <seconds>", description: "abort the run after this long", parse: positiveNumber },
  { flags: "--max-turns <n>", description: "stop after n model requests", parse: nonNegativeInt },
  { flags: "-c, --continue", description: "continue the most recent session in this directory" },
  { flags: "-r, --resume [session]", description: "resume a session by id prefix or path; alone, list recent sessions" },
  { flags: "--fork <session>", description: "continue a copy of a session (id prefix or path) as a new session; the original stays as it was" },
  { flags: "--from-claude [session]", description: "continue a Claude Code session of this project (id prefix or path; alone, its newest) as a new omp session, its history, tool calls and results kept" },
  { flags: "--from-codex [session]", description: "continue a Codex session (rollout id prefix or path; alone, this project's newest) as a new omp session, its history, tool calls and results kept" },
  { flags: "--no-session", description: "keep nothing on disk" },
  { flags: "-w, --worktree [name]", description: "work in git worktree <name> of this repository (made on branch omp/<name>, or taken up again); removed at the end when nothing changed in it" },
  { flags: "--session-dir <dir>", description: "keep session files in this directory" },
  { flags: "--config <file>", description: "extra config file over the others; repeatable", repeatable: true },
  { flags: "--profile <name>", description: "settings profile ~/.omp/agent/profiles/<name>.yml over the global config (also OMP_PROFILE)" },
  { flags: "--system-prompt <text>", description: "replace the built-in instructions" },
  { flags: "--append-system-prompt <text>", description: "add to the system prompt" },
  { flags: "--list-models", description: "list the models omp can use and exit" },
  { flags: "--trust", description: "trust this folder for this run: its .env, config and models files apply in full (see omp trust)" },
  { flags: "--add-dir <dir>", description: "a directory outside the project the tools may use without asking; repeatable", repeatable: true },
  { flags: "--allow-host <host>", description: "a host (name, address, host:port) web_fetch, web_search and MCP may send to without asking, as web.allowHosts; repeatable", repeatable: true },
  { flags: "-e, --extension <path>", description: "load a TypeScript/JavaScript extension (a module or a folder); repeatable", repeatable: true },
  { flags: "--mcp-config <file>", description: "MCP servers from this JSON file too (.mcp.json format); repeatable", repeatable: true },
];
