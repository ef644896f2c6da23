import { PROVIDERS } from "../ai/providers-table.ts";

/** Names that usually hold a credential: dropped from a command's environment unless allowed. */
export const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL/i;

/** omp's own credential variables, whatever their names look like. */
const OMP_CREDENTIALS = new Set(["OMP_AUTH_BROKER_TOKEN", "OMP_AUTH_BROKER_URL", "GITHUB_TOKEN", "GH_TOKEN", ...PROVIDERS.flatMap((provider) => provider.keyEnv)]);

/** Names that match SECRET_NAME but hold none: git's config pairs, keyboard settings, paths to files. */
const NOT_SECRET = /^GIT_CONFIG_KEY_\d+$|KEYBOARD|KEYMAP|^TOKENIZERS_PARALLELISM$|_(FILE|PATH|DIR)$/i;

/** Whether a variable of this name holds a credential, by omp's knowledge or by its name. */
export function isSecretName(name: string): boolean {
  return OMP_CREDENTIALS.has(name) || (SECRET_NAME.test(name) && !NOT_SECRET.test(name));
}

/** The values of `env`'s variables that look like secrets by name, for redaction. */
export function secretValuesIn(env: Record<string, string | undefined>): string[] {
  return Object.entries(env).flatMap(([name, value]) => (value && isSecretName(name) ? [value] : []));
}

/**
 * A model command's environment: `env` without omp's credentials, without variables named like a
 * secret, and without any variable holding one of `secrets` (the values omp knows), except the
 * names in `allow` (`sandbox.envAllow`). Returns the names dropped, so a UI can say so.
 */
export function commandEnv(env: Record<string, string | undefined>, secrets: readonly string[], allow: readonly string[]): { env: Record<string, string>; dropped: string[] } {
  const known = new Set(secrets.filter((secret) => secret.length >= 8));
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = isSecretName(name) || known.has(value);
    if (secret && !allow.includes(name)) dropped.push(name);
    else kept[name] = value;
  }
  return { env: kept, dropped };
}
