import type { ToolDeclaration } from "../declare.ts";
import { firstLine, str } from "./text.ts";

export const job: ToolDeclaration = {
  name: "job",
  load: () => import("../job.ts").then((module) => module.jobTool),
  editor: (input) => ({ kind: input.action === "kill" || input.action === "write" ? "execute" : "read", title: `Job ${input.id ?? ""} ${str(input.action)}`.replace("  ", " ") }),
  terminal: { argument: (input) => [firstLine(input.action), typeof input.id === "number" ? `#${input.id}` : "", firstLine(input.input)].filter(Boolean).join(" ") },
  claude: { names: ["BashOutput", "KillShell"] },
};
