import type { ToolDeclaration } from "../declare.ts";
import { paged } from "./rows.ts";
import { firstLine, oneLine, str } from "./text.ts";

export const webFetch: ToolDeclaration = {
  name: "web_fetch",
  load: () => import("../web-fetch.ts").then((module) => module.webFetchTool),
  editor: (input) => ({ kind: "fetch", title: `Fetch ${oneLine(str(input.url))}` }),
  terminal: { argument: (input) => firstLine(input.url) + (typeof input.offset === "number" ? ` from line ${input.offset}` : ""), note: paged },
  claude: { names: ["WebFetch"] },
  aliases: ["fetch", "webfetch"],
};
