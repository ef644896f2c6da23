import { existsSync, readFileSync, realpathSync } from "node:fs";
import { jsonSyntaxError } from "../fs/json-syntax.ts";
import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { isValidName } from "./names.ts";
import { describeZodError } from "../errors/zod-issues.ts";

/**
 * Claude Code's marketplace catalog. Catalogs in the wild carry `$schema`, `version`, `renames` and
 * keys nobody documented: unknown keys are kept and ignored, and one odd entry never costs the rest.
 */
const pin = { ref: z.string().min(1).optional(), sha: z.string().regex(/^[0-9a-fA-F]{7,40}$/).optional() };
export const SourceSchema = z.union([
  z.string().min(1),
  z.looseObject({
    source: z.literal("github"),
    // Hand-written catalogs also give the repository's URL here: reduced to owner/repo.
    repo: z.preprocess(
      (value) => (typeof value === "string" ? value.replace(/^(https?:\/\/)?(www\.)?github\.com\//, "").replace(/\.git$|\/$/, "") : value),
      z.string().regex(/^[\w.-]+\/[\w.-]+$/),
    ),
    ...pin,
  }),
  // "git" is what some hand-written catalogs say for a plain git URL.
  z.looseObject({ source: z.enum(["url", "git"]), url: z.string().min(1), ...pin }),
  z.looseObject({ source: z.literal("git-subdir"), url: z.string().min(1), path: z.string().min(1), ...pin }),
  z.looseObject({ source: z.literal("npm"), package: z.string().min(1), version: z.string().optional(), registry: z.string().optional() }),
  z.looseObject({ source: z.literal("directory"), path: z.string().min(1) }),
]);
export type PluginSource = z.infer<typeof SourceSchema>;

const pathsOrInline = z.union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional();

export const CatalogEntrySchema = z.looseObject({
  name: z.string(),
  source: SourceSchema,
  description: z.string().optional().catch(undefined),
  version: z.string().optional().catch(undefined),
  strict: z.boolean().optional().catch(undefined),
  category: z.string().optional().catch(undefined),
  commands: pathsOrInline,
  agents: pathsOrInline,
  skills: pathsOrInline,
  hooks: pathsOrInline,
  mcpServers: pathsOrInline,
});
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

export const CatalogSchema = z.looseObject({
  name: z.string(),
  owner: z.looseObject({ name: z.string().optional() }).optional().catch(undefined),
  metadata: z.looseObject({ description: z.string().optional(), version: z.string().optional(), pluginRoot: z.string().optional() }).optional().catch(undefined),
  plugins: z.array(z.unknown()),
});

export interface Catalog {
  name: string;
  description?: string;
  pluginRoot?: string;
  plugins: CatalogEntry[];
  /** Entries left out, each with why: shown by `marketplace list` and `discover` so nothing vanishes silently. */
  skipped: { name: string; reason: string }[];
}

/** `.omp-plugin/marketplace.json` first when a repository ships both, else Claude Code's. */
export function findCatalogFile(root: string): string | null {
  for (const dir of [".omp-plugin", ".claude-plugin"]) {
    const file = join(root, dir, "marketplace.json");
    if (existsSync(file)) return file;
  }
  return null;
}

export function parseCatalog(text: string, where: string): Catalog {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new OmpError(`${where} is not valid JSON (${jsonSyntaxError(text) ?? describeError(error)}); fix the catalog or ask its owner to`);
  }
  const parsed = CatalogSchema.safeParse(raw);
  if (!parsed.success) {
    throw new OmpError(`${where} is not a marketplace catalog: it needs "name" and a "plugins" array (${describeZodError(parsed.error, "")})`);
  }
  if (!isValidName(parsed.data.name)) {
    throw new OmpError(`${where} names its marketplace "${parsed.data.name}", which is not a valid name (lowercase letters, digits, "-", ".")`);
  }
  const catalog: Catalog = {
    name: parsed.data.name,
    description: parsed.data.metadata?.description ?? (typeof parsed.data.description === "string" ? parsed.data.description : undefined),
    pluginRoot: parsed.data.metadata?.pluginRoot,
    plugins: [],
    skipped: [],
  };
  for (const item of parsed.data.plugins) {
    const entry = CatalogEntrySchema.safeParse(item);
    const name = typeof (item as { name?: unknown })?.name === "string" ? (item as { name: string }).name : "(unnamed)";
    if (!entry.success) catalog.skipped.push({ name, reason: `unsupported entry: ${describeZodError(entry.error, "")}` });
    else if (!isValidName(entry.data.name)) catalog.skipped.push({ name, reason: "invalid plugin name" });
    else catalog.plugins.push(entry.data);
  }
  return catalog;
}

export function readCatalogFile(file: string): Catalog {
  return parseCatalog(readFileSync(file, "utf8"), file);
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * A relative source inside the marketplace folder, after `metadata.pluginRoot`. `./` is the root
 * itself. A source that leads out of the root (by `..` or a symlink) is refused: a catalog must
 * not be able to install an arbitrary folder of this machine.
 */
export function resolveRelativeSource(marketplaceRoot: string, pluginRoot: string | undefined, source: string): string {
  const root = realpathSync(marketplaceRoot);
  const rel = source.replace(/^\.\/?/, "");
  if (isAbsolute(source)) throw new OmpError(`plugin source "${source}" is absolute; catalog sources are relative to the marketplace ("./dir")`);
  // "./" is the marketplace root itself, whatever pluginRoot says; other paths are under pluginRoot.
  const base = pluginRoot && rel !== "" ? resolve(root, pluginRoot) : root;
  const target = resolve(base, rel);
  if (!inside(root, target)) throw new OmpError(`plugin source "${source}" leads outside the marketplace folder; refused`);
  if (!existsSync(target)) throw new OmpError(`plugin source "${source}" does not exist in the marketplace (${target})`);
  const real = realpathSync(target);
  if (!inside(root, real)) throw new OmpError(`plugin source "${source}" is a link leading outside the marketplace folder; refused`);
  return real;
}

export function describeSource(source: PluginSource): string {
  if (typeof source === "string") return source;
  switch (source.source) {
    case "github":
      return `github:${source.repo}${source.sha ? `@${source.sha.slice(0, 12)}` : source.ref ? `#${source.ref}` : ""}`;
    case "url":
    case "git":
      return `${source.url}${source.sha ? `@${source.sha.slice(0, 12)}` : ""}`;
    case "git-subdir":
      return `${source.url} ${source.path}`;
    case "npm":
      return `npm:${source.package}${source.version ? `@${source.version}` : ""}`;
    case "directory":
      return source.path;
  }
}
