import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readJsonIfPresent } from "../fs/read-json.ts";

/**
 * What a plugin folder contributes, resolved to paths the loaders read: Claude Code's layout
 * (`.claude-plugin/plugin.json`, default `commands/`, `agents/`, `skills/`, `hooks/hooks.json`,
 * `.mcp.json`) and the original omp's `package.json` manifest (`omp`, `pi` as fallback) with
 * `extensions`, `tools`, `hooks`, `commands` and optional `features`.
 */
export interface PluginComponents {
  /** Folders of markdown commands (or single .md files). */
  commands: string[];
  agents: string[];
  /** Folders holding `<name>/SKILL.md`. */
  skills: string[];
  /** Claude-format hooks files (hooks.json), run with CLAUDE_PLUGIN_ROOT set to the plugin root. */
  hooks: string[];
  /** Files in `.mcp.json`'s shape (`{mcpServers: {...}}`). */
  mcp: string[];
  /** TypeScript/JavaScript extension modules (omp manifest); only npm, git, local and linked plugins. */
  extensions: string[];
  tools: string[];
  /** omp-manifest hook modules (not hooks.json). */
  hookModules: string[];
}

/**
 * The manifests are read on every session start, where zod is not loaded (test/unit/start-up-imports),
 * so they are checked by hand: wrong-typed fields are ignored, never fatal.
 */
export interface PluginJson {
  name?: string;
  version?: string;
  description?: string;
  commands?: unknown;
  agents?: unknown;
  skills?: unknown;
  hooks?: unknown;
  mcpServers?: unknown;
}

type PathList = string | string[];
export interface OmpFeature {
  default?: boolean;
  description?: string;
  extensions?: PathList;
  tools?: PathList;
  hooks?: PathList;
  commands?: PathList;
}
export interface OmpManifest {
  extensions?: PathList;
  tools?: PathList;
  hooks?: PathList;
  commands?: PathList;
  features?: Record<string, OmpFeature>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const optionalString = (value: unknown) => (typeof value === "string" ? value : undefined);

function asManifest(value: unknown): OmpManifest | null {
  if (!isRecord(value)) return null;
  const features: Record<string, OmpFeature> = {};
  if (isRecord(value.features)) for (const [name, feature] of Object.entries(value.features)) if (isRecord(feature)) features[name] = feature as OmpFeature;
  return { ...(value as OmpManifest), features };
}

export interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  manifest: OmpManifest | null;
}


export function readPluginJson(root: string): PluginJson | null {
  const file = join(root, ".claude-plugin", "plugin.json");
  if (!existsSync(file)) return null;
  const raw = readJsonIfPresent(file);
  if (!isRecord(raw)) return null;
  return { ...raw, name: optionalString(raw.name), version: optionalString(raw.version), description: optionalString(raw.description) };
}

export function readPackageJson(root: string): PackageJson | null {
  const raw = readJsonIfPresent(join(root, "package.json")) as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== "object") return null;
  const record = (value: unknown) => (value && typeof value === "object" ? (value as Record<string, string>) : undefined);
  return {
    name: typeof raw.name === "string" ? raw.name : undefined,
    version: typeof raw.version === "string" ? raw.version : undefined,
    dependencies: record(raw.dependencies),
    optionalDependencies: record(raw.optionalDependencies),
    manifest: asManifest(raw.omp ?? raw.pi),
  };
}

const strings = (value: unknown): string[] =>
  typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** A manifest path inside the plugin root; one leading out of it is ignored (a plugin cannot point at the user's files). */
function within(root: string, path: string): string | null {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  return existsSync(full) ? full : null;
}

/** A module entry: a file, or a folder with index.{ts,js,mjs,cjs}. */
function moduleEntry(root: string, path: string): string | null {
  const full = within(root, path);
  if (!full) return null;
  if (statSync(full).isFile()) return full;
  for (const index of ["index.ts", "index.js", "index.mjs", "index.cjs"]) if (existsSync(join(full, index))) return join(full, index);
  return null;
}

function unique(paths: (string | null)[]): string[] {
  return [...new Set(paths.filter((path): path is string => path !== null))];
}

/** Manifest features in effect: the chosen ones, every one (`*`), or those marked default (null). */
export function activeFeatures(manifest: OmpManifest, chosen: string[] | null): string[] {
  const all = Object.keys(manifest.features ?? {});
  if (chosen === null) return all.filter((name) => manifest.features?.[name]?.default === true);
  return chosen.filter((name) => all.includes(name));
}

const COMPONENT_KEYS = ["commands", "agents", "skills", "hooks", "mcpServers"] as const;

/**
 * The manifest in effect: a `strict: false` marketplace entry (or one for a folder without
 * plugin.json) lends its component fields, as Claude Code applies them.
 */
export function withEntry(own: PluginJson | null, entry: Record<string, unknown> | null | undefined): PluginJson | null {
  if (!entry || (entry.strict !== false && own !== null)) return own;
  const manifest: Record<string, unknown> = { ...(own ?? {}) };
  for (const key of COMPONENT_KEYS) if (entry[key] !== undefined && manifest[key] === undefined) manifest[key] = entry[key];
  if (typeof entry.name === "string") manifest.name ??= entry.name;
  return manifest as PluginJson;
}

export function resolveComponents(root: string, options: { features?: string[] | null; allowModules?: boolean; entry?: Record<string, unknown> | null } = {}): PluginComponents {
  const plugin = withEntry(readPluginJson(root), options.entry);
  const pkg = options.allowModules === false ? null : readPackageJson(root);
  // Fields may name folders or files, one string or a list. A list naming things inside the
  // default folder picks among them (anthropics/skills lists `./skills/xlsx` per plugin of one
  // repository); one naming other places adds to the default folder.
  const paths = (key: "commands" | "agents" | "skills", fallback: string) => {
    const base = within(root, fallback);
    const listed = unique(strings(plugin?.[key]).map((path) => within(root, path)));
    const picks = base !== null && listed.length > 0 && listed.every((path) => path.startsWith(base + sep));
    return unique([picks ? null : base, ...listed]);
  };
  const components: PluginComponents = {
    commands: paths("commands", "commands"),
    agents: paths("agents", "agents"),
    skills: paths("skills", "skills"),
    hooks: unique([within(root, join("hooks", "hooks.json")), ...strings(plugin?.hooks).map((path) => within(root, path))]),
    mcp: unique([within(root, ".mcp.json"), ...strings(plugin?.mcpServers).map((path) => within(root, path))]),
    extensions: [],
    tools: [],
    hookModules: [],
  };
  const manifest = pkg?.manifest;
  if (manifest) {
    const features = activeFeatures(manifest, options.features ?? null).map((name) => manifest.features![name]!);
    const gather = (key: "extensions" | "tools" | "hooks" | "commands") => [manifest[key], ...features.map((feature) => feature[key])].flatMap(strings);
    if (options.allowModules !== false) {
      components.extensions = unique(gather("extensions").map((path) => moduleEntry(root, path)));
      components.tools = unique(gather("tools").map((path) => moduleEntry(root, path)));
      components.hookModules = unique(gather("hooks").map((path) => moduleEntry(root, path)));
    }
    components.commands = unique([...components.commands, ...gather("commands").map((path) => within(root, path))]);
  }
  return components;
}

/** The name a plugin folder gives itself: plugin.json, then package.json. */
export function declaredName(root: string): string | undefined {
  return readPluginJson(root)?.name ?? readPackageJson(root)?.name;
}
