import readme from "../../README.md" with { type: "text" };
import read from "../../docs/read.md" with { type: "text" };
import web from "../../docs/web.md" with { type: "text" };
import { settingCatalog } from "../config/settings-catalog.ts";
import { errorResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import { readTextOf } from "./read.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import type { ReadDetails } from "./read-details.ts";

/** omp's own documentation, in the binary so it answers offline; this module loads on the first omp:// read. */
const PAGES: Record<string, { title: string; text: () => string }> = {
  "README.md": { title: "What omp is, install, commands, tools, compatibility", text: () => readme },
  "read.md": { title: "read: selectors, documents, archives, SQLite, URLs", text: () => read },
  "web.md": { title: "web_fetch, web_search, proxies, allowed hosts", text: () => web },
  "settings.md": { title: "Every config.yml setting with its default", text: settingsPage },
};

function settingsPage(): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = settingCatalog().map((info) => {
    const allowed = info.choices?.join(", ") ?? info.range ?? info.kind;
    return `| \`${info.key}\` | ${info.default === undefined ? "(unset)" : `\`${JSON.stringify(info.default)}\``} | ${cell(allowed)} | ${cell(info.description)} |`;
  });
  return `# Settings\n\nIn ~/.omp/agent/config.yml (yours), ~/.omp/agent/profiles/<name>.yml (with --profile <name>) or .omp/config.yml (the project's, once trusted). \`omp config set <key> <value>\` and /settings write them.\n\n| key | default | allowed | what it does |\n| --- | --- | --- | --- |\n${rows.join("\n")}\n`;
}

export async function readOmpDocs(url: string, range: ReadRange, _context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const name = url.replace(/^omp:\/\//i, "").replace(/^\/+|\/+$/g, "");
  if (name === "") {
    const list = Object.entries(PAGES).map(([page, { title }]) => `omp://${page} — ${title}`);
    return readTextOf("omp://", `omp's documentation (built in; read a page by its path):\n${list.join("\n")}`, range);
  }
  const page = PAGES[name] ?? PAGES[`${name}.md`];
  if (!page) return errorResult(`There is no omp://${name}. Pages: ${Object.keys(PAGES).map((p) => `omp://${p}`).join(", ")}.`);
  return readTextOf(`omp://${name}`, page.text(), range);
}
