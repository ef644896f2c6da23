import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { agentDir, displayPath } from "../paths.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { OmpError } from "../errors/omp-error.ts";

/**
 * Named settings profiles: `~/.omp/agent/profiles/<name>.yml`, laid over the user's config.yml
 * and under the project's (settings.ts). `--profile <name>` selects one for a run; OMP_PROFILE
 * (or the original omp's PI_PROFILE) selects one for every omp the environment reaches.
 */

export const profilesDir = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "profiles");

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The profile this process runs under: the flag's, else the environment's; undefined for none. */
export function activeProfile(env: NodeJS.ProcessEnv = process.env, explicit?: string): string | undefined {
  const name = explicit ?? env.OMP_PROFILE ?? env.PI_PROFILE;
  return name === undefined || name === "" ? undefined : name;
}

/** The file of profile `name`; a name that is no plain file name (`../x`, `a/b`) is an error. */
export function profilePath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!NAME.test(name) || name.includes("..")) {
    throw new OmpError(`profile name ${JSON.stringify(name)} is not valid: use letters, digits, dot, dash and underscore`, { exitCode: EXIT_USAGE });
  }
  return join(profilesDir(env), `${name}.yml`);
}

/** The profiles there are, by name, sorted. */
export function listProfiles(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return readdirSync(profilesDir(env))
      .filter((file) => file.endsWith(".yml"))
      .map((file) => file.slice(0, -".yml".length))
      .filter((name) => NAME.test(name))
      .sort();
  } catch {
    return [];
  }
}

/** A selected profile whose file does not exist: says which profiles there are and where they go. */
export function unknownProfile(name: string, env: NodeJS.ProcessEnv = process.env): OmpError {
  const known = listProfiles(env);
  const where = displayPath(profilePath(name, env));
  const list = known.length > 0 ? `profiles: ${known.join(", ")}` : `there are no profiles yet; create ${where}, or \`omp config set --profile ${name} <key> <value>\``;
  return new OmpError(`unknown profile "${name}": no ${where}; ${list}`, { exitCode: EXIT_USAGE });
}

/**
 * `--profile <name>`: selects the profile for this process through OMP_PROFILE, so every settings
 * read sees it, and so does an omp that one of the model's commands starts. It must exist.
 */
export function selectProfile(name: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (name === undefined) return;
  if (!existsSync(profilePath(name, env))) throw unknownProfile(name, env);
  env.OMP_PROFILE = name;
}
