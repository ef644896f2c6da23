import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { isHarmlessKey } from "../config/untrusted-settings.ts";
import { parseLenientJson } from "../fs/lenient-json.ts";
import { projectRoot } from "../fs/project-root.ts";
import { projectLspFiles } from "../lsp/project-files.ts";
import { projectMcpPaths } from "../mcp/config-paths.ts";
import { projectConfigPath } from "../paths.ts";
import { projectInstalledFile } from "../plugins/paths.ts";
import type { Pin } from "./folder-trust.ts";

/**
 * The parts of a project that trusting it lets run code or loosen approvals: its hooks and
 * settings beyond the harmless ones (`.omp/config.yml`), Claude Code's hooks, allow rules, env
 * and plugins (`.claude/settings*.json`), MCP and language servers, extensions and installed
 * plugins. Trust is pinned to what each said when the user trusted the folder (content-pins.ts).
 */

/** The text kept of a part (for the diff); a bigger one is pinned by its hash alone. */
export const MAX_PIN_TEXT = 32 * 1024;
/** Extensions listed per folder at most: past it, the listing ends with a count. */
const MAX_EXTENSION_FILES = 500;
/** Folders nested deeper than this in an extensions folder are taken for a link loop. */
const MAX_EXTENSION_DEPTH = 16;

/** What of Claude Code's settings trust turns on; the rest (deny/ask rules, model, theme) applies anyway. */
const CLAUDE_KEYS = ["hooks", "env", "enabledPlugins", "statusLine", "apiKeyHelper", "enableAllProjectMcpServers", "enabledMcpjsonServers", "additionalDirectories"];
const CLAUDE_PERMISSION_KEYS = ["allow", "additionalDirectories", "defaultMode"];

/** What a part holds that trust covers: as pinned, and as it is now. */
export type PartContent = Pin;

export const extensionsDir = (cwd: string) => join(cwd, ".omp", "extensions");

/** Every file or folder of `cwd`'s project whose content trust is pinned to (existing or not). */
export function projectParts(cwd: string): string[] {
  return [projectConfigPath(cwd), ...projectClaudeSettings(cwd), ...projectMcpPaths(cwd), ...projectLspFiles(cwd), extensionsDir(cwd), projectInstalledFile(cwd)];
}

/** The project's Claude Code settings files (of its repository, as Claude Code reads them). */
export const projectClaudeSettings = (cwd: string) => ["settings.json", "settings.local.json"].map((name) => join(projectRoot(cwd), ".claude", name));

// Bun's hasher: node:crypto is kept off the start-up path (test/unit/start-up-imports.test.ts).
const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));
}

/** The part of a file trust covers, as text to compare and diff; undefined when it has none. */
function coveredText(file: string, text: string): string | undefined {
  const shown = (value: Record<string, unknown>) => (Object.keys(value).length === 0 ? undefined : `${JSON.stringify(value, null, 2)}\n`);
  try {
    if (file.endsWith(".yml") && file.includes(".omp")) {
      const values = (require("yaml") as typeof import("yaml")).parse(text) as Record<string, unknown> | null;
      if (!values || typeof values !== "object") return undefined;
      return shown(Object.fromEntries(Object.entries(values).filter(([key]) => !isHarmlessKey(key))));
    }
    if (/\/\.claude\/settings(\.local)?\.json$/.test(file)) {
      const data = parseLenientJson(text) as Record<string, unknown> | null;
      if (!data || typeof data !== "object") return text;
      const permissions = data.permissions && typeof data.permissions === "object" ? pick(data.permissions as Record<string, unknown>, CLAUDE_PERMISSION_KEYS) : {};
      return shown({ ...pick(data, CLAUDE_KEYS), ...(Object.keys(permissions).length > 0 ? { permissions } : {}) });
    }
  } catch {
    // Unreadable as its format: the whole text is compared, so any change still counts.
  }
  return text;
}

/**
 * A folder of extensions as one line per file with its hash, so a changed module is a changed line.
 * Links are followed as the extension loader follows them. Past the first files (and in
 * node_modules, which a package's `omp.extensions` may point into) each file counts by its name,
 * size and time in one summary line: bounded to read, and still changed by any change.
 */
function listingOf(dir: string): string | undefined {
  const lines: string[] = [];
  const rest = new Bun.CryptoHasher("sha256");
  let more = 0;
  const walk = (at: string, depth: number, listed: boolean) => {
    if (depth > MAX_EXTENSION_DEPTH) throw new Error(`${at}: folders nested deeper than ${MAX_EXTENSION_DEPTH} (a link loop?)`);
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path, depth + 1, listed && name !== "node_modules");
      else if (listed && lines.length < MAX_EXTENSION_FILES) lines.push(`${relative(dir, path)}  sha256:${sha256(readFileSync(path))}`);
      else {
        more++;
        rest.update(`${relative(dir, path)}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
  };
  walk(dir, 0, true);
  if (more > 0) lines.push(`… and ${more} more files (by name, size and time: ${rest.digest("hex").slice(0, 16)})`);
  return lines.length > 0 ? `${lines.join("\n")}\n` : undefined;
}
/**
 * What a part holds now that trust covers; undefined when it does not exist or covers nothing.
 * `pinned`: what the part held when trusted; a file whose whole hash is the same is that, unparsed.
 */
export function partContent(path: string, pinned?: PartContent): PartContent | undefined {
  let text: string | undefined;
  let raw: string | undefined;
  try {
    if (!existsSync(path)) return undefined;
    if (statSync(path).isDirectory()) text = listingOf(path);
    else {
      const bytes = readFileSync(path);
      raw = sha256(bytes);
      if (pinned?.raw === raw) return pinned;
      text = coveredText(path, bytes.toString("utf8"));
    }
  } catch (error) {
    // Unreadable now (a broken link, a loop, no permission): changed, never taken as the trusted content.
    text = `(unreadable: ${(error as Error).message})`;
    return { sha256: `unreadable:${sha256(text)}`, text };
  }
  if (text === undefined) return undefined;
  return { sha256: sha256(text), ...(text.length <= MAX_PIN_TEXT ? { text } : {}), ...(raw ? { raw } : {}) };
}
