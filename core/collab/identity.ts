import type { Settings } from "../config/settings-schema.ts";

/** The name other participants see: collab.displayName, else the OS user's (node:os only then: the terminal starts without it). */
export async function displayName(settings: Settings): Promise<string> {
  if (settings.collab.displayName) return settings.collab.displayName.slice(0, 64);
  const fromEnv = process.env.USER || process.env.LOGNAME || process.env.USERNAME;
  if (fromEnv) return fromEnv.slice(0, 64);
  try {
    const { userInfo } = await import("node:os");
    return userInfo().username.slice(0, 64) || "guest";
  } catch {
    return "guest";
  }
}

/** The token a self-hosted relay asks hosts for: OMP_RELAY_TOKEN over collab.relayToken. Only ever sent to the relay. */
export function relayToken(settings: Settings, env: Record<string, string | undefined>): string | undefined {
  return env.OMP_RELAY_TOKEN || settings.collab.relayToken;
}
