import type { ToolDeclaration } from "../declare.ts";
import { firstLine, oneLine, str } from "./text.ts";

export const browser: ToolDeclaration = {
  name: "browser",
  load: () => import("../browser.ts").then((module) => module.browserTool),
  offered: (options) => options.browser === true,
  editor: (input) => ({ kind: input.action === "run" ? "execute" : "fetch", title: `Browser ${str(input.action)} ${str(input.name ?? "main")}${input.url ? ` ${oneLine(str(input.url))}` : ""}` }),
  terminal: { argument: (input) => [firstLine(input.action), firstLine(input.name ?? "main"), firstLine(input.url ?? input.code)].filter(Boolean).join(" ") },
};
