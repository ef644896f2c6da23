import { commandMatches, commandsOf } from "../../permissions/bash-rules.ts";
import { pathAt, type CodedToolDeclaration, type ToolDeclaration } from "../declare.ts";
import { commandRow } from "./rows.ts";
import { oneLine, str } from "./text.ts";

export const BASH_DEFAULT_TIMEOUT_S = 120;

export const bash: CodedToolDeclaration = {
  name: "bash",
  order: 40,
  load: () => import("../bash.ts").then((module) => module.bashTool),
  description: [
    "Run a command with bash -c; returns stdout and stderr merged.",
    `Each call is a fresh shell in the working directory (or cwd): cd and variables do not carry over. No stdin or terminal unless pty: use non-interactive flags (git --no-edit, apt-get -y).`,
    `Killed with all it started after timeout seconds (default ${BASH_DEFAULT_TIMEOUT_S}). Long output keeps the first 200 and last 400 lines and names a log file with all of it. A non-zero exit is an error.`,
    "background: true for servers and watchers, pty: true for interactive programs (REPLs, rebase -i); both give a job id for the job tool, as does a command still running after a while.",
    "Sandboxed: writes only in the project and temp dirs, no network, credential files unreadable; a refusal says so, and the user may allow a rerun outside.",
    "For files use read, grep, find, edit and write, not cat, grep, find, sed -i or echo >.",
  ].join(" "),
  effect: "exec",
  editor: (input) => ({ kind: "execute", title: oneLine(str(input.command)), command: str(input.command) }),
  terminal: commandRow,
  paths: pathAt("cwd", "read"),
  claude: {
    names: ["Bash"],
    fields: { background: "run_in_background" },
    // `Bash(npm run test:*)` covers a line when any command in it matches (allow rules are judged per line by bashAllowed).
    specifier: (specifier, input) => commandsOf(str(input.command)).some((part) => commandMatches(specifier, part)),
  },
};

/** The user's own `!cmd` in the interactive mode, shown as bash's are. */
export const shell: ToolDeclaration = { name: "shell", terminal: commandRow };
