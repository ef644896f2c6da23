import { brokerClientConfig } from "../../core/broker/config.ts";
import { BrokerCredentialSource } from "../../core/broker/client.ts";
import { readCliProxyCredentials } from "../../core/broker/import.ts";
import { startBroker } from "../../core/broker/server.ts";
import { viaCommand } from "../../core/broker/via.ts";
import { EntriesResponse, UsageResponse } from "../../core/broker/wire.ts";
import { brokerTokenPath, ensureBrokerToken } from "../../core/broker/token.ts";
import { identityKeyOf } from "../../core/auth/credential.ts";
import { OAUTH_PROVIDERS } from "../../core/auth/oauth/providers.ts";
import { CredentialStore } from "../../core/auth/store.ts";
import { readFileSync } from "node:fs";
import { OmpError, describeError } from "../../core/errors/omp-error.ts";
import { checkedBind, isLoopback } from "../../core/http/bind.ts";
import { displayPath } from "../../core/paths.ts";
import { VERSION } from "../../core/version.ts";
import { writeFdQuietly, writeStdout } from "../shared/write.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";

export interface BrokerServeFlags {
  bind: string;
  public?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  insecureHttp?: boolean;
  allowHost?: string[];
}

/**
 * TLS from the flags, or none; a public address without TLS needs `--insecure-http`, since the
 * broker hands out API keys and access tokens.
 */
function brokerTls(options: BrokerServeFlags, hostname: string): { cert: string; key: string } | undefined {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) throw new OmpError("--tls-cert and --tls-key go together: give both PEM files", { exitCode: EXIT_USAGE });
  if (options.tlsCert !== undefined && options.tlsKey !== undefined) {
    try {
      return { cert: readFileSync(options.tlsCert, "utf8"), key: readFileSync(options.tlsKey, "utf8") };
    } catch (error) {
      throw new OmpError(`cannot read the TLS files: ${describeError(error)}`, { exitCode: EXIT_USAGE });
    }
  }
  if (!isLoopback(hostname) && !options.insecureHttp) {
    throw new OmpError(
      `auth-broker: ${hostname} is reachable from other machines and the broker serves credentials: give --tls-cert and --tls-key, or --insecure-http to send them readable over the network`,
      { exitCode: EXIT_USAGE },
    );
  }
  return undefined;
}

/** `omp auth-broker serve`: runs until SIGINT or SIGTERM, then closes its connections and the vault. */
export async function runBrokerServe(options: BrokerServeFlags): Promise<number> {
  const { hostname, port } = checkedBind(options.bind, { public: options.public, service: "auth-broker" });
  const tls = brokerTls(options, hostname);
  const token = ensureBrokerToken();
  const store = CredentialStore.open();
  // Quietly: a closed stdout (a pipe whose reader went away) must not take the broker down.
  const log = (line: string) => writeFdQuietly(1, `${new Date().toISOString()} ${line}\n`);
  const interval = Number.parseInt(process.env.OMP_AUTH_BROKER_REFRESH_INTERVAL_MS ?? "", 10);
  const keepalive = Number.parseInt(process.env.OMP_AUTH_BROKER_KEEPALIVE_MS ?? "", 10);
  const broker = startBroker({
    store,
    hostname,
    port,
    token,
    version: VERSION,
    log,
    ...(tls ? { tls } : {}),
    ...(options.allowHost ? { allowHosts: options.allowHost } : {}),
    ...(interval > 0 ? { intervalMs: interval } : {}),
    ...(keepalive > 0 ? { keepaliveMs: keepalive } : {}),
  });
  if (!tls && !isLoopback(hostname)) log(`WARNING: serving credentials over plain HTTP on ${broker.address}, readable by anyone on the network path (--insecure-http); use --tls-cert and --tls-key`);
  log(`auth-broker listening ${broker.address} (vault ${displayPath(store.path)}, token ${displayPath(brokerTokenPath())})`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await broker.stop();
  store.close();
  log("auth-broker stopped");
  return 0;
}

export async function runBrokerToken(options: { regenerate?: boolean; json?: boolean }): Promise<number> {
  const token = ensureBrokerToken(options.regenerate);
  await writeStdout(options.json ? `${JSON.stringify({ token, path: brokerTokenPath() })}\n` : `${token}\n`);
  return 0;
}

function remote(): BrokerCredentialSource {
  const config = brokerClientConfig();
  if (!config) {
    throw new OmpError("no broker configured: set OMP_AUTH_BROKER_URL or `omp config set auth.broker.url <url>` (and the token: OMP_AUTH_BROKER_TOKEN, auth.broker.token or ~/.omp/auth-broker.token)", {
      exitCode: EXIT_USAGE,
    });
  }
  return new BrokerCredentialSource(config);
}

/** `omp auth-broker status`: is the configured broker up, and what does it hold. */
export async function runBrokerStatus(options: { json?: boolean }): Promise<number> {
  const client = remote();
  let health: { ok?: boolean; version?: string };
  try {
    health = (await (await fetch(`${client.config.url}/v1/healthz`, { signal: AbortSignal.timeout(5000) })).json()) as typeof health;
  } catch (error) {
    throw new OmpError(`the auth broker at ${client.config.url} is not answering (${error instanceof Error ? error.message : String(error)})`);
  }
  const snapshot = await client.fetchSnapshot();
  const usage = await client.request("GET", "/v1/usage", UsageResponse);
  const providers = [...new Set(snapshot.credentials.map((entry) => entry.provider))].sort();
  const report = { url: client.config.url, ok: health.ok === true, version: health.version, generation: snapshot.generation, credentials: snapshot.credentials.length, providers, usage: usage.reports };
  const limits = usage.reports.flatMap((usageReport) =>
    usageReport.limits
      .filter((limit) => limit.status === "exhausted")
      .map((limit) => `  ${usageReport.provider} ${limit.scope.account ?? ""}: usage limit reached, resets ${limit.window?.resetsAt ? new Date(limit.window.resetsAt).toISOString() : "at an unknown time"}\n`),
  );
  await writeStdout(
    options.json
      ? `${JSON.stringify(report)}\n`
      : `auth broker ${report.url}: ${report.ok ? "up" : "unhealthy"} (omp ${report.version}), ${report.credentials} credentials${providers.length ? ` for ${providers.join(", ")}` : ""}\n${limits.join("")}`,
  );
  return report.ok ? 0 : 1;
}

export async function runBrokerList(options: { json?: boolean }): Promise<number> {
  const rows = OAUTH_PROVIDERS.map((provider) => ({ id: provider.id, name: provider.name, flow: provider.flow }));
  await writeStdout(options.json ? `${JSON.stringify(rows)}\n` : rows.map((row) => `${row.id.padEnd(18)} ${row.name}`).join("\n") + "\n");
  return 0;
}

/** `omp auth-broker login <provider> --via user@host`: the login runs on the broker host through ssh (core/broker/via.ts). */
export async function runBrokerLoginVia(provider: string | undefined, via: string): Promise<number> {
  const spec = OAUTH_PROVIDERS.find((candidate) => candidate.id === provider);
  if (!spec) throw new OmpError(`--via needs the provider: ${OAUTH_PROVIDERS.map((candidate) => candidate.id).join(", ")}`, { exitCode: EXIT_USAGE });
  const child = Bun.spawn(viaCommand(spec, via, { tty: process.stdin.isTTY === true }), { stdin: "inherit", stdout: "inherit", stderr: "inherit" });
  const code = await child.exited;
  if (code === 255) throw new OmpError(`ssh to ${via} failed (see its message above); check the host, your key, and that omp is installed there`, { exitCode: EXIT_FAILURE });
  return code;
}

/** `omp auth-broker import <file|dir>`: CLIProxyAPI credential files into this host's vault. */
export async function runBrokerImport(path: string, options: { provider?: string; includeDisabled?: boolean; dryRun?: boolean; json?: boolean }): Promise<number> {
  const items = readCliProxyCredentials(path, options);
  const results: { file: string; provider?: string; account?: string; result: string }[] = [];
  const store = options.dryRun ? undefined : CredentialStore.open();
  try {
    for (const item of items) {
      if (!item.credential || !item.provider) {
        results.push({ file: item.file, result: `skipped: ${item.skipped}` });
        continue;
      }
      const account = identityKeyOf(item.credential) ?? undefined;
      if (store) store.upsert(item.provider, item.credential);
      results.push({ file: item.file, provider: item.provider, account, result: options.dryRun ? "would import" : "imported" });
    }
  } finally {
    store?.close();
  }
  await writeStdout(
    options.json ? `${JSON.stringify(results)}\n` : `${results.map((row) => `${displayPath(row.file)}: ${row.result}${row.provider ? ` (${row.provider}${row.account ? ` ${row.account}` : ""})` : ""}`).join("\n")}\n`,
  );
  return results.some((row) => row.result.startsWith("skipped")) ? 1 : 0;
}

/** `omp auth-broker migrate --from-local`: uploads this machine's vault to the configured broker; idempotent. */
export async function runBrokerMigrate(options: { fromLocal?: boolean; includeOauth?: boolean; dryRun?: boolean; json?: boolean }): Promise<number> {
  if (!options.fromLocal) throw new OmpError("say where from: `omp auth-broker migrate --from-local`", { exitCode: EXIT_USAGE });
  const client = remote();
  const snapshot = await client.fetchSnapshot();
  const store = CredentialStore.open();
  const results: { provider: string; id: number; type: string; result: string }[] = [];
  try {
    for (const row of store.active()) {
      const { credential } = row;
      if (credential.type === "oauth" && !options.includeOauth) {
        results.push({ provider: row.provider, id: row.id, type: credential.type, result: "skipped (OAuth: use --include-oauth)" });
        continue;
      }
      const present = snapshot.credentials.some(
        (entry) =>
          entry.provider === row.provider &&
          (credential.type === "api_key" ? entry.credential.type === "api_key" && entry.credential.key === credential.key : entry.identityKey !== null && entry.identityKey === row.identityKey),
      );
      if (present) {
        results.push({ provider: row.provider, id: row.id, type: credential.type, result: "already on the broker" });
        continue;
      }
      if (!options.dryRun) await client.request("POST", "/v1/credential", EntriesResponse, { provider: row.provider, credential });
      results.push({ provider: row.provider, id: row.id, type: credential.type, result: options.dryRun ? "would upload" : "uploaded" });
    }
  } finally {
    store.close();
  }
  await writeStdout(options.json ? `${JSON.stringify(results)}\n` : `${results.map((row) => `${row.provider} #${row.id} (${row.type}): ${row.result}`).join("\n") || "nothing to migrate"}\n`);
  return 0;
}
