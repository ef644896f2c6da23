import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Claude Code's rule for marketplace and plugin names: lowercase, digits, `-` and `.`, alphanumeric ends. */
const NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

export function isValidName(name: string): boolean {
  return name.length <= 64 && NAME.test(name) && !name.includes("..");
}

export function checkName(name: string, what: string): string {
  if (!isValidName(name)) {
    throw new OmpError(
      `${what} name "${name}" is not valid: use lowercase letters, digits, "-" and "." (starting and ending with a letter or digit, at most 64 characters)`,
      { exitCode: EXIT_USAGE },
    );
  }
  return name;
}

export interface PluginId {
  plugin: string;
  marketplace: string;
}

/** `name@marketplace`, both parts valid, at most 128 characters. */
export function parsePluginId(id: string): PluginId | null {
  const at = id.lastIndexOf("@");
  if (at <= 0 || id.length > 128) return null;
  const plugin = id.slice(0, at);
  const marketplace = id.slice(at + 1);
  return isValidName(plugin) && isValidName(marketplace) ? { plugin, marketplace } : null;
}

export const pluginIdOf = (id: PluginId) => `${id.plugin}@${id.marketplace}`;

/** npm's package-name rule (lowercase, URL-safe, optional scope), which also keeps names off any path trick. */
const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

export function isValidNpmName(name: string): boolean {
  return name.length <= 214 && NPM_NAME.test(name);
}

/**
 * The original omp's install grammar: `pkg`, `pkg@range`, `@scope/pkg@1.2.3`, each optionally
 * followed by `[feat,…]`, `[*]` (every feature) or `[]` (none). Bare means the manifest's defaults.
 */
export interface FeatureSpec {
  target: string;
  features: string[] | "all" | null;
}

export function parseFeatureSpec(spec: string): FeatureSpec {
  const match = /^(.*)\[([^\]]*)\]$/.exec(spec);
  if (!match) return { target: spec, features: null };
  const inner = match[2]!.trim();
  if (inner === "*") return { target: match[1]!, features: "all" };
  const features = inner === "" ? [] : inner.split(",").map((part) => part.trim()).filter(Boolean);
  return { target: match[1]!, features };
}

export interface NpmSpec {
  name: string;
  range: string;
}

/** `pkg`, `pkg@1.2.3`, `pkg@^1`, `@scope/pkg@latest`; null when it is not an npm spec. */
export function parseNpmSpec(spec: string): NpmSpec | null {
  const versionAt = spec.startsWith("@") ? spec.indexOf("@", 1) : spec.indexOf("@");
  const name = versionAt === -1 ? spec : spec.slice(0, versionAt);
  const range = versionAt === -1 ? "latest" : spec.slice(versionAt + 1);
  if (!isValidNpmName(name) || !/^[\w.^~<>=|* -]+$/.test(range)) return null;
  return { name, range };
}
