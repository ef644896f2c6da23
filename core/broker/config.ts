import { join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { configRoot, displayPath } from "../paths.ts";
import { brokerTokenPath, readBrokerToken } from "./token.ts";

type Env = Record<string, string | undefined>;

export interface BrokerClientConfig {
  url: string;
  token: string;
  /** Where the encrypted snapshot is kept; undefined when the cache is off (TTL 0). */
  cachePath: string | undefined;
  cacheTtlMs: number;
}

/**
 * Broker mode is on when `OMP_AUTH_BROKER_URL` is set. The token comes from
 * `OMP_AUTH_BROKER_TOKEN`, else `~/.omp/auth-broker.token`; a URL without a token is an error that
 * names the file, since silently falling back to local credentials would use the wrong ones.
 */
export function brokerClientConfig(env: Env = process.env): BrokerClientConfig | undefined {
  const raw = env.OMP_AUTH_BROKER_URL?.trim();
  if (!raw) return undefined;
  let url: string;
  try {
    url = new URL(raw).toString().replace(/\/+$/, "");
  } catch {
    throw new OmpError(`OMP_AUTH_BROKER_URL is not a URL: ${raw}`, { exitCode: 2 });
  }
  const token = env.OMP_AUTH_BROKER_TOKEN?.trim() || readBrokerToken();
  if (!token) {
    throw new OmpError(
      `OMP_AUTH_BROKER_URL is set but there is no broker token: set OMP_AUTH_BROKER_TOKEN or put the token (\`omp auth-broker token\` on the broker host) in ${displayPath(brokerTokenPath())}`,
      { exitCode: 2 },
    );
  }
  const ttl = Number.parseInt(env.OMP_AUTH_BROKER_SNAPSHOT_TTL_MS ?? "", 10);
  const cacheTtlMs = Number.isInteger(ttl) && ttl >= 0 ? ttl : 3_600_000;
  const cachePath = cacheTtlMs === 0 ? undefined : env.OMP_AUTH_BROKER_SNAPSHOT_CACHE?.trim() || join(configRoot(), "cache", "auth-broker-snapshot.enc");
  return { url, token, cachePath, cacheTtlMs };
}
