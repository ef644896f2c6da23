import { join } from "node:path";
import { ensureTokenFile } from "../http/token-file.ts";
import { configRoot } from "../paths.ts";

/** `~/.omp/auth-broker.token`: the bearer every broker endpoint but /v1/healthz wants. */
export const brokerTokenPath = () => join(configRoot(), "auth-broker.token");

/** The broker's token, made on first use, or a new one with `regenerate`. */
export function ensureBrokerToken(regenerate = false): string {
  return ensureTokenFile(brokerTokenPath(), { regenerate, holder: "another omp auth-broker" }).token;
}
