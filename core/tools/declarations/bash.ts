import { commandMatches, commandsOf } from "../../permissions/bash-rules.ts";
import { pathAt, type ToolDeclaration } from "../declare.ts";
import { commandRow } from "./rows.ts";
import { oneLine, str } from "./text.ts";

export const bash: ToolDeclaration = {
  name: "bash",
  load: () => import("../bash.ts").then((module) => module.bashTool),
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
