import { existsSync } from "node:fs";
import { loadDotenv } from "../../core/config/dotenv.ts";
import { loadModelsConfig } from "../../core/config/models.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { bindUrl, checkedBind, isLoopback, parseBind } from "../../core/http/bind.ts";
import { parseSize } from "../../core/http/body-limit.ts";
import { checkCredentials } from "../../core/gateway/check.ts";
import { ensureToken, tokenPath } from "../../core/gateway/token.ts";
import { readTokenFile } from "../../core/http/token-file.ts";
import { Upstream } from "../../core/gateway/upstream.ts";
import { displayPath, homeDir } from "../../core/paths.ts";
import { writeStdout } from "../shared/write.ts";
import { serveUntilSignal } from "../shared/until-signal.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";

/**
 * The gateway is a user-level service: it reads the user's own models.yml and .env (not those of
 * whatever folder it was started in), so a project cannot redirect or re-key it.
 */
function loadUpstream(): Upstream {
  const home = homeDir();
  // The home folder's own files are the user's: trusted like every user-level file.
  loadDotenv({ cwd: home, env: process.env, trusted: true });
  const { config } = loadModelsConfig({ cwd: home, env: process.env, trusted: true });
  return new Upstream(config, process.env);
}

const DEFAULT_BIND = "127.0.0.1:4000";

export interface ServeFlags {
  bind?: string;
  public?: boolean;
  auth?: boolean;
  allowOrigin?: string[];
  allowHost?: string[];
  maxBody?: string;
  connectTimeout?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
}

function seconds(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new OmpError(`${flag} takes seconds > 0, not ${JSON.stringify(text)}`, { exitCode: EXIT_USAGE });
  return Math.round(value * 1000);
}

/** `omp auth-gateway serve`: runs until SIGINT/SIGTERM, then lets running streams finish. */
export async function runGatewayServe(flags: ServeFlags): Promise<number> {
  const noAuth = flags.auth === false;
  const requested = parseBind(flags.bind ?? DEFAULT_BIND).hostname;
  // Said before --public is asked for: with --no-auth no public address is allowed at all.
  if (noAuth && !isLoopback(requested)) {
    throw new OmpError(`--no-auth is only allowed on a loopback address; ${requested} is reachable from other machines. Drop --no-auth (clients then send the token from \`omp auth-gateway token\`).`, { exitCode: EXIT_USAGE });
  }
  const bind = checkedBind(flags.bind ?? DEFAULT_BIND, { public: flags.public, service: "auth-gateway" });
  const maxBodyBytes = flags.maxBody === undefined ? undefined : parseSize(flags.maxBody);
  if (flags.maxBody !== undefined && maxBodyBytes === undefined) throw new OmpError(`--max-body takes a size such as 8MB or 512KB, not ${JSON.stringify(flags.maxBody)}`, { exitCode: EXIT_USAGE });
  const timeouts = {
    connectMs: seconds("--connect-timeout", flags.connectTimeout),
    firstByteMs: seconds("--first-byte-timeout", flags.firstByteTimeout),
    idleMs: seconds("--idle-timeout", flags.idleTimeout),
  };
  const token = noAuth ? undefined : ensureToken().token;
  const upstream = loadUpstream();
  const { startGateway } = await import("../../core/gateway/server.ts");
  const { UsageLog, gatewayDbPath } = await import("../../core/usage/usage-db.ts");
  const usage = new UsageLog(gatewayDbPath());
  let gateway;
  try {
    gateway = startGateway({
      bind,
      token,
      upstream,
      usage,
      allowOrigins: flags.allowOrigin,
      allowHosts: flags.allowHost,
      maxBodyBytes,
      timeouts: Object.fromEntries(Object.entries(timeouts).filter(([, value]) => value !== undefined)),
    });
  } catch (error) {
    usage.close();
    const code = (error as { code?: string }).code;
    const why = code === "EADDRINUSE" ? "the address is in use (another gateway?); pick another with --bind" : (error as Error).message;
    throw new OmpError(`cannot listen on ${bind.hostname}:${bind.port}: ${why}`, { cause: error });
  }
  const models = (await upstream.servableModels()).length;
  process.stderr.write(
    `omp auth-gateway listening on ${gateway.address} (${noAuth ? "no auth" : `token in ${displayPath(tokenPath())}`}; ${models} models)\n` +
      `  OpenAI:    ${gateway.url}/v1   Anthropic: ${gateway.url}\n`,
  );
  await serveUntilSignal("omp auth-gateway: stopping; letting running requests finish", () => gateway.stop());
  usage.close();
  upstream.close();
  return 0;
}

/** `omp auth-gateway token`: prints the token, making one on first use. */
export async function runGatewayToken(flags: { regenerate?: boolean; json?: boolean }): Promise<number> {
  const { token, created } = ensureToken({ regenerate: flags.regenerate });
  const path = tokenPath();
  if (flags.json) await writeStdout(`${JSON.stringify({ token, path, created })}\n`);
  else await writeStdout(`${token}\n`);
  if (!flags.json && created) process.stderr.write(`saved to ${displayPath(path)} (0600)${flags.regenerate ? "; the old token no longer works" : ""}\n`);
  return 0;
}

/** `omp auth-gateway status`: whether a gateway answers at the address, and what it would serve. */
export async function runGatewayStatus(flags: { bind?: string; json?: boolean }): Promise<number> {
  const url = bindUrl(parseBind(flags.bind ?? DEFAULT_BIND));
  let running = false;
  let version: string | undefined;
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    if (response.ok) {
      running = true;
      version = ((await response.json()) as { version?: string }).version;
    }
  } catch {
    running = false;
  }
  const upstream = loadUpstream();
  const models = await upstream.servableModels();
  const providers = [...new Set(models.map((m) => m.provider))].sort();
  upstream.close();
  const path = tokenPath();
  const report = { url, running, version, token: { path, exists: existsSync(path) && readTokenFile(path) !== undefined }, providers, models: models.length };
  if (flags.json) await writeStdout(`${JSON.stringify(report)}\n`);
  else {
    await writeStdout(
      `${running ? `running at ${url} (omp ${version})` : `not running at ${url}`}\n` +
        `token: ${displayPath(path)}${report.token.exists ? "" : " (not created yet: `omp auth-gateway token`)"}\n` +
        `serves ${models.length} models from ${providers.length > 0 ? providers.join(", ") : "no provider (add a key: `omp auth add <provider>`)"}\n`,
    );
  }
  return running ? 0 : 1;
}

/** `omp auth-gateway check`: each provider's credentials; `--strict` also sends each a one-token request. */
export async function runGatewayCheck(flags: { strict?: boolean; json?: boolean }): Promise<number> {
  const upstream = loadUpstream();
  const rows = await checkCredentials(upstream, flags.strict === true);
  upstream.close();
  if (flags.json) await writeStdout(`${JSON.stringify(rows)}\n`);
  else if (rows.length === 0) await writeStdout("no provider has a credential: set an API key or run `omp auth add <provider>`\n");
  else {
    const lines = rows.map((r) => {
      const probe = r.probe ? (r.probe.ok ? ` probe ${r.probe.model} ok in ${r.probe.ms} ms` : ` probe ${r.probe.model} failed: ${r.probe.error}`) : "";
      return `${r.ok ? "ok  " : "FAIL"} ${r.provider} (${r.models} models) ${r.source ?? r.error ?? ""}${r.credential ? ` [${r.credential}]` : ""}${probe}`;
    });
    await writeStdout(`${lines.join("\n")}\n`);
  }
  return rows.every((r) => r.ok) ? 0 : 1;
}
