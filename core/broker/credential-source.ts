import { existsSync } from "node:fs";
import { agentDbPath } from "../paths.ts";
import type { CredentialSource } from "../auth/source.ts";

type Env = Record<string, string | undefined>;

/**
 * The credentials every omp command uses: the auth broker's when `OMP_AUTH_BROKER_URL` (or `auth.broker.url`) is set,
 * else this machine's vault (undefined when there is none yet). The agent, `omp auth list` and the
 * gateway all come here, so broker mode needs nothing else. Modules are required lazily: bun:sqlite
 * and node:crypto stay off the start-up path of a run whose key comes from the environment.
 */
export function openCredentialSource(env: Env = process.env): CredentialSource | undefined {
  const { brokerClientConfig } = require("./config.ts") as typeof import("./config.ts");
  const broker = brokerClientConfig(env);
  if (broker) {
    const { BrokerCredentialSource } = require("./client.ts") as typeof import("./client.ts");
    return new BrokerCredentialSource(broker);
  }
  const path = agentDbPath(env as NodeJS.ProcessEnv);
  if (!existsSync(path)) return undefined;
  const { CredentialStore, CredentialStoreError } = require("../auth/store.ts") as typeof import("../auth/store.ts");
  const { LocalCredentialSource } = require("../auth/local-source.ts") as typeof import("../auth/local-source.ts");
  try {
    return new LocalCredentialSource(CredentialStore.open(path), env);
  } catch (error) {
    // A vault omp cannot open never locks the user out: keys from elsewhere still work.
    if (!(error instanceof CredentialStoreError)) throw error;
    const { warnUser } = require("../errors/user-warnings.ts") as typeof import("../errors/user-warnings.ts");
    warnUser(`${error.message}; going on without stored credentials`);
    return undefined;
  }
}
