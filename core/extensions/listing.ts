import { relative, sep } from "node:path";
import { displayPath } from "../paths.ts";
import type { CatalogEntry } from "./catalog.ts";
import type { Extensions } from "./extensions.ts";

/** A slash command a client can offer (rpc get_available_commands). */
export interface AvailableCommand {
  name: string;
  description: string;
  argumentHint?: string;
  /** A markdown command, a TypeScript extension's command, an MCP server's prompt, or a skill invoked by hand (`skill:<name>`). */
  kind: "command" | "extension" | "mcp" | "skill";
  location: string;
  path: string;
}

/** The markdown commands, the extensions' commands, the MCP servers' prompts, then every skill as `skill:<name>`. */
export function availableCommands(extensions: Extensions): AvailableCommand[] {
  const markdown = new Set(extensions.commands.map((c) => c.name));
  return [
    ...extensions.commands.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}), kind: "command" as const, location: c.source.kind, path: c.path })),
    ...extensions.codeCommands.filter((c) => !markdown.has(c.name)).map((c) => ({ name: c.name, description: c.description ?? "", kind: "extension" as const, location: "extension", path: c.file })),
    ...extensions.providedCommands.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}), kind: "mcp" as const, location: c.source.kind, path: c.path })),
    ...extensions.skills.map((s) => ({ name: `skill:${s.name}`, description: s.description, kind: "skill" as const, location: s.source.kind, path: s.path })),
  ];
}

/** The listing as JSON: where omp looked, and every item with its file and status. */
export function extensionsJson(extensions: Extensions) {
  const entries = extensions.listExtensions();
  return {
    cwd: extensions.cwd,
    sources: extensions.sources.map((s) => ({ kind: s.kind, root: s.root, trusted: s.trusted, ...(s.namespace ? { namespace: s.namespace } : {}) })),
    items: entries.map((e) => ({
      kind: e.kind,
      name: e.name,
      status: e.status,
      source: e.source.kind,
      path: e.path,
      ...(e.description ? { description: e.description } : {}),
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.warning ? { warning: e.warning } : {}),
      ...(e.note ? { note: e.note } : {}),
      ...(e.detail ? { detail: e.detail } : {}),
      ...(e.data ?? {}),
    })),
  };
}

const KIND_TITLES: Record<string, string> = { skill: "Skills", command: "Commands", hook: "Hooks", permission: "Permission rules", agent: "Agents", extension: "Extensions", rule: "Rules" };
const MARK: Record<CatalogEntry["status"], string> = { loaded: " ", shadowed: "~", skipped: "✗" };

export interface ListingLine {
  text: string;
  style: "title" | "loaded" | "dim" | "problem";
}

/**
 * The listing as lines, grouped by kind: `omp extensions` prints them, `/extensions` draws them.
 * Each item with its source and file; shadowed (~) and skipped (✗) ones with why.
 */
export function extensionsListing(extensions: Extensions): ListingLine[] {
  const entries = extensions.listExtensions();
  const lines: ListingLine[] = [];
  // The built-in subagent is always listed, so this says where skills and commands would be.
  if (extensions.sources.length === 0) {
    lines.push({ text: "No skills or commands: omp looks in ~/.omp/agent, ~/.claude, and .omp, .claude, .agents from here up to the repository root.", style: "dim" });
  }
  // Skills and commands first, as before the other kinds joined the catalog; then hooks, agents, extensions.
  const order = Object.keys(KIND_TITLES);
  const rank = (kind: string) => (order.includes(kind) ? order.indexOf(kind) : order.length);
  const kinds = [...new Set(entries.map((e) => e.kind))].sort((a, b) => rank(a) - rank(b));
  for (const kind of kinds) {
    const group = entries.filter((e) => e.kind === kind);
    const counts = (["loaded", "shadowed", "skipped"] as const).map((status) => [status, group.filter((e) => e.status === status).length] as const).filter(([, n]) => n > 0);
    if (lines.length > 0) lines.push({ text: "", style: "dim" });
    lines.push({ text: `${KIND_TITLES[kind] ?? kind} (${counts.map(([status, n]) => `${n} ${status}`).join(", ")})`, style: "title" });
    const width = Math.min(32, Math.max(...group.map((e) => displayName(e).length)) + 2);
    for (const entry of group) {
      const why = entry.reason ?? entry.warning ?? entry.note;
      lines.push({
        text: `${MARK[entry.status]} ${displayName(entry).padEnd(width)} ${entry.source.kind.padEnd(8)} ${shownPath(entry.path, extensions.cwd)}${entry.detail ? ` → ${entry.detail}` : ""}${why ? ` — ${why}` : ""}`,
        style: entry.status === "skipped" || entry.warning ? "problem" : entry.status === "shadowed" ? "dim" : "loaded",
      });
    }
  }
  if (kinds.length === 0 && extensions.sources.length > 0) lines.push({ text: `Looked in ${extensions.sources.map((s) => s.label).join(", ")}: nothing found.`, style: "dim" });
  const untrusted = extensions.sources.filter((s) => s.kind === "project" && !s.trusted);
  if (untrusted.length > 0) {
    lines.push({ text: "", style: "dim" });
    lines.push({ text: `Not trusted (their commands' !\`cmd\` lines do not run; \`omp trust\` the folder to allow them): ${untrusted.map((s) => s.label).join(", ")}`, style: "dim" });
  }
  return lines;
}

/** Under the working directory relative to it, else with ~ for the home directory. */
function shownPath(path: string, cwd: string): string {
  return path.startsWith(cwd + sep) ? relative(cwd, path) : displayPath(path);
}

function displayName(entry: CatalogEntry): string {
  return entry.kind === "command" ? `/${entry.name}` : entry.name;
}
