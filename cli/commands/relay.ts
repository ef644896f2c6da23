import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { OmpError } from "../../core/errors/omp-error.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { isLoopback } from "../../core/http/bind.ts";
import { ensureTokenFile, readTokenFile } from "../../core/http/token-file.ts";
import { displayPath } from "../../core/paths.ts";
import { serveUntilSignal } from "../shared/until-signal.ts";
import type { RelayLimits } from "../../core/collab/relay-limits.ts";

export interface RelayServeFlags {
  host?: string;
  port?: string;
  /** A string from `--token`, false from `--no-token`. */
  token?: string | false;
  tokenFile?: string;
  allowOrigin?: string[];
  allowHost?: string[];
  maxRooms?: string;
  maxGuests?: string;
  hostWait?: string;
  idleTimeout?: string;
}

function count(flag: string, text: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) throw new OmpError(`${flag} takes a whole number from 1 to ${max}, not ${JSON.stringify(text)}`, { exitCode: EXIT_USAGE });
  return value;
}

/** The hosts' token: given, read from (or first made in) a file, or none; `where` says which for the banner. */
function hostToken(flags: RelayServeFlags, hostname: string): { token?: string; where: string } {
  if (typeof flags.token === "string" && flags.tokenFile !== undefined) throw new OmpError("give the token with --token or --token-file, not both", { exitCode: EXIT_USAGE });
  if (typeof flags.token === "string") {
    if (flags.token.trim().length < 16) throw new OmpError("--token must be at least 16 characters (a guessable token lets anyone open rooms); or use --token-file, which makes a random one", { exitCode: EXIT_USAGE });
    return { token: flags.token.trim(), where: "hosts send the --token" };
  }
  if (flags.tokenFile !== undefined) {
    const path = resolve(flags.tokenFile);
    const made = existsSync(path) ? { token: readTokenFile(path), created: false } : ensureTokenFile(path, { prefix: "omp-relay-", holder: "another omp relay" });
    if (!made.token) throw new OmpError(`the token file ${displayPath(path)} is empty; put a token in it or delete it to have one made`, { exitCode: EXIT_USAGE });
    return { token: made.token, where: `hosts send the token ${made.created ? "made in" : "from"} ${displayPath(path)}` };
  }
  // Content-blind or not, an open relay on a public address is anyone's free message bus.
  if (flags.token !== false && !isLoopback(hostname)) {
    throw new OmpError(`--host ${hostname} is reachable from other machines: give hosts a token with --token-file <path> (or --token), or say --no-token to run an open relay`, { exitCode: EXIT_USAGE });
  }
  return { where: "any host may open a room" };
}

/** `omp relay serve`: runs until SIGINT/SIGTERM. */
export async function runRelayServe(flags: RelayServeFlags): Promise<number> {
  const hostname = flags.host ?? "127.0.0.1";
  const port = flags.port === undefined ? 7475 : flags.port === "0" ? 0 : count("--port", flags.port, 65535)!;
  const { token, where } = hostToken(flags, hostname);
  const hostWait = count("--host-wait", flags.hostWait);
  const limits: Partial<RelayLimits> = Object.fromEntries(
    Object.entries({
      maxRooms: count("--max-rooms", flags.maxRooms),
      maxGuests: count("--max-guests", flags.maxGuests),
      hostWaitMs: hostWait === undefined ? undefined : hostWait * 1000,
      // Bun's WebSocket idle timeout goes up to 960 s.
      idleSeconds: count("--idle-timeout", flags.idleTimeout, 960),
    }).filter(([, value]) => value !== undefined),
  );
  const { startRelay } = await import("../../core/collab/relay-server.ts");
  let relay;
  try {
    relay = startRelay({ bind: { hostname, port }, token, allowOrigins: flags.allowOrigin, allowHosts: flags.allowHost, limits });
  } catch (error) {
    const why = (error as { code?: string }).code === "EADDRINUSE" ? "the address is in use (another relay?); pick another with --port" : (error as Error).message;
    throw new OmpError(`cannot listen on ${hostname}:${port}: ${why}`, { cause: error });
  }
  process.stderr.write(`omp relay listening on ${relay.address} (${where})\n  web guest: ${relay.url}/#<link>   hosts: /collab ${relay.url.replace(/^http/, "ws")}\n`);
  await serveUntilSignal("omp relay: stopping", () => relay.stop());
  return 0;
}
