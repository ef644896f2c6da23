import { editDistance } from "../../core/config/config-error.ts";
import { SUBCOMMANDS } from "./agent-argv.ts";

/**
 * The original omp's top-level commands (and its reserved plugin words) that this omp does not
 * have yet: typed alone they are a command someone remembers, not a task for the model.
 */
const ORIGINAL_COMMANDS = [
  "acp", "agents", "auth-broker", "auth-gateway", "bench", "commit", "completions", "gc", "gallery", "install", "join",
  "plugin", "plugins", "setup", "shell", "ssh", "stats", "usage", "token", "worktree", "wt", "extensions", "list",
  "remove", "uninstall", "marketplace", "discover", "upgrade", "enable", "disable", "launch", "login", "logout",
];

/**
 * A hint when the whole prompt is one word that is a command, not a task: one of the original's
 * commands (`omp plugin`), or a typo of a command (`omp updte`). Undefined for anything else.
 * Sending such a word to the model would cost a paid request that nobody wanted.
 */
export function misplacedCommand(messages: string[]): string | undefined {
  if (messages.length !== 1) return undefined;
  const word = messages[0]!.trim();
  if (!/^[a-z][a-z-]{1,20}$/.test(word)) return undefined;
  const asPrompt = `to ask the agent, write the task as a sentence, or send the word as it is with omp -p ${word}`;
  if (ORIGINAL_COMMANDS.includes(word) && !SUBCOMMANDS.has(word)) return `\`omp ${word}\` is not a command of this omp (yet); see omp --help for the commands there are; ${asPrompt}`;
  const commands = [...SUBCOMMANDS].filter((name) => name !== "help");
  const limit = word.length >= 6 ? 2 : 1;
  const near = commands.find((name) => editDistance(word, name) <= limit);
  if (near) return `\`omp ${word}\` is not a command: did you mean \`omp ${near}\`? (${asPrompt})`;
  return undefined;
}
