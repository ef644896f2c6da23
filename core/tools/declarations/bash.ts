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
    "Run a command with bash -c in the working directory (or cwd) and return its output, stdout and stderr merged in order.",
    `Each call is a fresh shell: cd and variables do not carry over, so chain with && or pass cwd. There is no stdin or terminal unless pty: use non-interactive flags (git --no-edit, apt-get -y, npm init -y).`,
    `The command is killed with everything it started after timeout seconds (default ${BASH_DEFAULT_TIMEOUT_S}), and when it exits. Long output keeps its first 200 and last 400 lines; the complete output is saved to a log file whose path is given, which you can read or grep.`,
    "A non-zero exit status makes the call an error; its output is still shown.",
    "Servers and watchers: background: true. Interactive programs (REPLs, rebase -i, prompts): pty: true. Both return a job id for the job tool; a command still running after a while becomes a job too.",
    "Commands run sandboxed: writes only in the project and temp dirs, no network, credential files unreadable. A refusal says so; the user may then allow a rerun outside.",
    "Use the read, grep, find, edit and write tools instead of cat, grep, find, sed -i or echo > for files.",
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
