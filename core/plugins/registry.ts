import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { homeDir } from "../paths.ts";
import { folderTrust } from "../trust/folder-trust.ts";

/**
 * Which npm registry to ask, as npm decides it: `npm_config_registry` (any case), then the
 * project's `.npmrc` (only in a trusted folder: an untrusted repository must not redirect where
 * code is downloaded from), then `~/.npmrc`; a `@scope:registry=` line wins for its scope. An
 * `//host/:_authToken=` line for that registry is sent as a bearer token.
 */
export interface Registry {
  url: string;
  token?: string;
}

function parseNpmrc(file: string): Map<string, string> {
  const values = new Map<string, string>();
  if (!existsSync(file)) return values;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*([^#;=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const value = match[2]!.replace(/^"(.*)"$/, "$1").replace(/\$\{([^}]+)\}/g, (_, name: string) => process.env[name] ?? "");
    values.set(match[1]!, value);
  }
  return values;
}

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

export function registryFor(packageName: string, cwd: string): Registry {
  const files = [join(homeDir(), ".npmrc")];
  if (folderTrust(cwd).trusted) files.push(join(cwd, ".npmrc"));
  const config = new Map<string, string>();
  for (const file of files) for (const [key, value] of parseNpmrc(file)) config.set(key, value);
  const scope = packageName.startsWith("@") ? packageName.split("/")[0] : undefined;
  const fromEnv = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  const url = withSlash((scope && config.get(`${scope}:registry`)) || fromEnv || config.get("registry") || "https://registry.npmjs.org/");
  const bare = url.replace(/^https?:/, "");
  const token = config.get(`${bare}:_authToken`) ?? config.get(`${withSlash(bare)}:_authToken`);
  return { url, token: token || undefined };
}
