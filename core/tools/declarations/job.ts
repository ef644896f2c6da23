import type { CodedToolDeclaration } from "../declare.ts";
import { firstLine, str } from "./text.ts";

export const job: CodedToolDeclaration = {
  name: "job",
  order: 100,
  load: () => import("../job.ts").then((module) => module.jobTool),
  description: [
    "Jobs bash started (background, pty, or still running).",
    "read: state, output since last read (pty: screen). write: send input, then read; C escapes (\\r Enter, \\x1b, \\x03) and <up> <down> <left> <right> <tab> <esc> <c-x>.",
    "kill: end it and all it started. Jobs end with the session.",
  ].join(" "),
  effect: "exec",
  // Needed only once bash started a job, and bash's result then shows the call (job {"action":"read","id":N}): a call by name loads it.
  loadMode: "discoverable",
  editor: (input) => ({ kind: input.action === "kill" || input.action === "write" ? "execute" : "read", title: `Job ${input.id ?? ""} ${str(input.action)}`.replace("  ", " ") }),
  terminal: { argument: (input) => [firstLine(input.action), typeof input.id === "number" ? `#${input.id}` : "", firstLine(input.input)].filter(Boolean).join(" ") },
  claude: { names: ["BashOutput", "KillShell"] },
};
