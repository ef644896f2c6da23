import { join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { configRoot, displayPath, globalConfigPath } from "../paths.ts";
import { userSettingValues } from "../config/settings.ts";
import { readTokenFile } from "../http/token-file.ts";
import { brokerTokenPath } from "./token.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

type Env = Record<string, string | undefined>;

export interface BrokerClientConfig {
  url: string;
  token: string;
  /** Where the encrypted snapshot is kept; undefined when the cache is off (TTL 0). */
  cachePath: string | undefined;
  cacheTtlMs: number;
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const COMMAND_TIMEOUT_MS = 10_000;

/**
 * A value of `auth.broker.*` in the user's config.yml: a literal, the name of an environment
 * variable, or `!command` whose trimmed output is the value (a password manager). The shell is
 * fine here: only the user's own file is read.
 */
function configValue(raw: unknown, key: string, env: Env): string | undefined {
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const text = raw.trim();
  if (ENV_NAME.test(text)) return env[text]?.trim() || undefined;
  if (!text.startsWith("!")) return text;
  const result = Bun.spawnSync(["sh", "-c", text.slice(1)], { stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: COMMAND_TIMEOUT_MS, env: env as Record<string, string> });
  const value = result.stdout.toString().trim();
  if (result.exitCode !== 0 || value === "") {
    throw new OmpError(`${key} in ${displayPath(globalConfigPath(env as NodeJS.ProcessEnv))}: its command ${result.exitCode === 0 ? "printed nothing" : `failed (status ${result.exitCode ?? "killed"})`}`, { exitCode: EXIT_USAGE });
  }
  return value;
}

/**
 * Broker mode is on when `OMP_AUTH_BROKER_URL` or `auth.broker.url` in the user's config.yml is
 * set. The token comes from `OMP_AUTH_BROKER_TOKEN`, else `auth.broker.token`, else
 * `~/.omp/auth-broker.token`; a URL without a token is an error that names the file, since silently
 * falling back to local credentials would use the wrong ones. A project's config.yml never takes
 * part (core/config/settings.ts drops its `auth`): it could send the token to anyone.
 */
export function brokerClientConfig(env: Env = process.env): BrokerClientConfig | undefined {
  const fromEnv = env.OMP_AUTH_BROKER_URL?.trim();
  const user = fromEnv && env.OMP_AUTH_BROKER_TOKEN?.trim() ? undefined : brokerSettings(env);
  const raw = fromEnv || configValue(user?.url, "auth.broker.url", env);
  if (!raw) return undefined;
  const origin = fromEnv ? "OMP_AUTH_BROKER_URL" : "auth.broker.url";
  let url: string;
  try {
    url = new URL(raw).toString().replace(/\/+$/, "");
  } catch {
    throw new OmpError(`${origin} is not a URL: ${raw}`, { exitCode: EXIT_USAGE });
  }
  const token = env.OMP_AUTH_BROKER_TOKEN?.trim() || configValue(user?.token, "auth.broker.token", env) || readTokenFile(brokerTokenPath());
  if (!token) {
    throw new OmpError(
      `${origin} is set but there is no broker token: set OMP_AUTH_BROKER_TOKEN or auth.broker.token, or put the token (\`omp auth-broker token\` on the broker host) in ${displayPath(brokerTokenPath())}`,
      { exitCode: EXIT_USAGE },
    );
  }
  const ttl = Number.parseInt(env.OMP_AUTH_BROKER_SNAPSHOT_TTL_MS ?? "", 10);
  const cacheTtlMs = Number.isInteger(ttl) && ttl >= 0 ? ttl : 3_600_000;
  const cachePath = cacheTtlMs === 0 ? undefined : env.OMP_AUTH_BROKER_SNAPSHOT_CACHE?.trim() || join(configRoot(), "cache", "auth-broker-snapshot.enc");
  return { url, token, cachePath, cacheTtlMs };
}

/** The broker URL as configured (environment, then the user's config.yml), unchecked: whether this omp is in broker mode. */
export function configuredBrokerUrl(env: Env = process.env): string | undefined {
  return env.OMP_AUTH_BROKER_URL?.trim() || configValue(brokerSettings(env)?.url, "auth.broker.url", env);
}

function brokerSettings(env: Env): { url?: unknown; token?: unknown } | undefined {
  const auth = userSettingValues(env as NodeJS.ProcessEnv).auth as { broker?: { url?: unknown; token?: unknown } } | undefined;
  return auth?.broker;
}
