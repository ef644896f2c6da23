import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseAllowedTools } from "./allowed-tools.ts";
import { type Catalog, claimName } from "./catalog.ts";
import { isDirEntry, isFile } from "../fs/dir-entry.ts";
import { displayPath } from "../paths.ts";
import { firstParagraph, listDir, slugify } from "./files.ts";
import { parseFrontmatter, stringValue } from "./frontmatter.ts";
import type { Source } from "./sources.ts";

/** A Markdown slash command (Claude Code's format): `/name args` sends its body, expanded. */
export interface MarkdownCommand {
  /** `review`, `ns:review` for commands/ns/review.md, `<plugin>:review` from a plugin. */
  name: string;
  description: string;
  argumentHint?: string;
  /** Tools the command may use; for its !`cmd` lines, which Bash patterns may run. */
  allowedTools: string[];
  /** Switches the model for this one prompt. */
  model?: string;
  path: string;
  source: Source;
}

/** Subfolders deeper than this are not commands (and not walked: a stray node_modules stays cheap). */
const MAX_DEPTH = 3;

/** The commands of every source, `<root>/commands/**.md`, first wins by name. */
export function loadCommands(sources: readonly Source[], catalog: Catalog): MarkdownCommand[] {
  const taken = new Map<string, MarkdownCommand>();
  const commands: MarkdownCommand[] = [];
  for (const source of sources) {
    const walk = (dir: string, namespace: string[]) => {
      for (const entry of listDir(dir)) {
        if (entry.name.startsWith(".")) continue;
        if (isDirEntry(dir, entry)) {
          if (namespace.length + 1 < MAX_DEPTH) walk(join(dir, entry.name), [...namespace, slugify(entry.name)]);
          continue;
        }
        if (!entry.name.toLowerCase().endsWith(".md")) continue;
        add(join(dir, entry.name), [...namespace, slugify(entry.name.slice(0, -3))]);
      }
    };
    const add = (path: string, parts: string[]) => {
      const read = readCommand(path, parts, source, catalog);
      if (!read) return;
      const { command, warning } = read;
      const owner = claimName(taken, command);
      const entryOf = { kind: "command", name: command.name, path: command.path, source, description: command.description, warning };
      if (owner) {
        catalog.add({ ...entryOf, status: "shadowed", reason: `shadowed by ${displayPath(owner.path)}` });
        return;
      }
      catalog.add({ ...entryOf, status: "loaded" });
      commands.push(command);
    };
    for (const dir of source.commandDirs ?? [join(source.root, "commands")]) {
      // plugin.json may list command files as well as folders.
      if (dir.toLowerCase().endsWith(".md") && isFile(dir)) add(dir, [...(source.namespace ? [source.namespace] : []), slugify(basename(dir).slice(0, -3))]);
      else walk(dir, source.namespace ? [source.namespace] : []);
    }
  }
  return commands;
}

function readCommand(path: string, parts: string[], source: Source, catalog: Catalog): { command: MarkdownCommand; warning?: string } | undefined {
  const name = parts.filter(Boolean).join(":");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    catalog.add({ kind: "command", name, status: "skipped", path, source, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` });
    return undefined;
  }
  const { data, body, problem } = parseFrontmatter(text);
  if (!name) {
    catalog.add({ kind: "command", name: path, status: "skipped", path, source, reason: "its file name gives no command name" });
    return undefined;
  }
  if (body.trim() === "") {
    catalog.add({ kind: "command", name, status: "skipped", path, source, reason: [problem, "the command has no body to send"].filter(Boolean).join("; ") });
    return undefined;
  }
  const description = (stringValue(data.description)?.trim() || firstParagraph(body)).replace(/\s+/g, " ");
  const argumentHint = stringValue(data["argument-hint"] ?? data.argumentHint)?.trim();
  const model = stringValue(data.model)?.trim();
  const command: MarkdownCommand = {
    name,
    description: description.length > 120 ? `${description.slice(0, 117)}...` : description,
    ...(argumentHint ? { argumentHint } : {}),
    allowedTools: parseAllowedTools(data["allowed-tools"] ?? data.allowedTools),
    ...(model && model !== "inherit" ? { model } : {}),
    path,
    source,
  };
  return { command, warning: problem };
}

/** The command's template: its file without the frontmatter, read now (it may have changed). */
export function readCommandBody(command: MarkdownCommand): string {
  return parseFrontmatter(readFileSync(command.path, "utf8")).body;
}
