import { existsSync } from "node:fs";
import { agentDbPath } from "../paths.ts";
import type { CredentialSource } from "./source.ts";

type Env = Record<string, string | undefined>;

/**
 * The credentials every omp command uses: the auth broker's when `OMP_AUTH_BROKER_URL` (or `auth.broker.url`) is set,
 * else this machine's vault (undefined when there is none yet). The agent, `omp auth list` and the
 * gateway all come here, so broker mode needs nothing else. Modules are required lazily: bun:sqlite
 * and node:crypto stay off the start-up path of a run whose key comes from the environment.
 */
export function openCredentialSource(env: Env = process.env): CredentialSource | undefined {
  const { brokerClientConfig } = require("../broker/config.ts") as typeof import("../broker/config.ts");
  const broker = brokerClientConfig(env);
  if (broker) {
    const { BrokerCredentialSource } = require("../broker/client.ts") as typeof import("../broker/client.ts");
    return new BrokerCredentialSource(broker);
  }
  const path = agentDbPath(env as NodeJS.ProcessEnv);
  if (!existsSync(path)) return undefined;
  const { CredentialStore } = require("./store.ts") as typeof import("./store.ts");
  const { LocalCredentialSource } = require("./local-source.ts") as typeof import("./local-source.ts");
  return new LocalCredentialSource(CredentialStore.open(path), env);
}
