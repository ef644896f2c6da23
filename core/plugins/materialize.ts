import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import type { CatalogEntry } from "./catalog.ts";
import { readPluginJson, withEntry } from "./components.ts";
import { readJsonIfPresent } from "../fs/read-json.ts";


/**
 * Makes an installed plugin folder self-describing, so the loaders read only files: a `strict:
 * false` catalog entry (or one for a folder without plugin.json) lends its component fields to the
 * plugin's manifest, and hooks or MCP servers given inline (objects rather than paths) are written
 * out as `hooks/inline-hooks.json` and `.mcp.inline.json`.
 */
export function materializeManifest(dir: string, entry: CatalogEntry | null): void {
  const own = readPluginJson(dir);
  const manifest: Record<string, unknown> = { ...(withEntry(own, entry as Record<string, unknown> | null) ?? {}) };
  if (entry && (entry.strict === false || own === null)) {
    if (entry.version) manifest.version ??= entry.version;
    if (entry.description) manifest.description ??= entry.description;
  }
  if (manifest.hooks && typeof manifest.hooks === "object" && !Array.isArray(manifest.hooks)) {
    mkdirSync(join(dir, "hooks"), { recursive: true });
    const inline = manifest.hooks as Record<string, unknown>;
    writeFileAtomic(join(dir, "hooks", "inline-hooks.json"), JSON.stringify("hooks" in inline ? inline : { hooks: inline }, null, 2), { mode: 0o644 });
    manifest.hooks = "./hooks/inline-hooks.json";
  }
  if (manifest.mcpServers && typeof manifest.mcpServers === "object" && !Array.isArray(manifest.mcpServers)) {
    const inline = manifest.mcpServers as Record<string, unknown>;
    writeFileAtomic(join(dir, ".mcp.inline.json"), JSON.stringify("mcpServers" in inline ? inline : { mcpServers: inline }, null, 2), { mode: 0o644 });
    manifest.mcpServers = "./.mcp.inline.json";
  }
  if (own === null && Object.keys(manifest).length === 0) return;
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
  writeFileAtomic(join(dir, ".claude-plugin", "plugin.json"), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
}

interface HooksFile {
  hooks?: Record<string, { matcher?: string; hooks?: { type?: string; command?: string }[] }[]>;
}
interface McpFile {
  mcpServers?: Record<string, { command?: string; args?: string[]; url?: string; type?: string }>;
}


/** Lines naming every program a plugin will run: its hooks' commands and its MCP servers. */
export function describeWhatRuns(hookFiles: string[], mcpFiles: string[], modules: string[]): string[] {
  const lines: string[] = [];
  for (const file of hookFiles) {
    for (const [event, groups] of Object.entries((readJsonIfPresent(file) as HooksFile | undefined)?.hooks ?? {})) {
      for (const group of Array.isArray(groups) ? groups : []) {
        for (const hook of group.hooks ?? []) if (hook.command) lines.push(`hook ${event}${group.matcher ? ` (${group.matcher})` : ""}: ${hook.command}`);
      }
    }
  }
  for (const file of mcpFiles) {
    const doc = (readJsonIfPresent(file) as (McpFile & Record<string, unknown>) | undefined);
    const servers = (doc?.mcpServers ?? doc ?? {}) as NonNullable<McpFile["mcpServers"]>;
    for (const [name, server] of Object.entries(servers)) {
      if (server && typeof server === "object") lines.push(`MCP server ${name}: ${server.command ? [server.command, ...(server.args ?? [])].join(" ") : (server.url ?? "(no command)")}`);
    }
  }
  for (const module of modules) lines.push(`extension code: ${module}`);
  return lines;
}
