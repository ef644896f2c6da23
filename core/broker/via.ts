import { OmpError } from "../errors/omp-error.ts";
import { type OAuthProvider, callbackPortOf, callbackPortVar } from "../auth/oauth/providers.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { userSshOptions } from "../ssh/options.ts";

type Env = Record<string, string | undefined>;

/** `[user@]host[:port]`: what `--via` takes; an IPv6 host goes in brackets (`user@[::1]:2222`). */
const VIA = /^(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;

export interface ViaTarget {
  destination: string;
  port?: number;
}

export function parseVia(via: string): ViaTarget {
  const match = VIA.exec(via.trim());
  const port = match?.[3] === undefined ? undefined : Number(match[3]);
  if (!match || match[2]!.startsWith("-") || (port !== undefined && (port < 1 || port > 65535))) {
    throw new OmpError(`--via takes user@host or user@host:port (the ssh port), not "${via}"`, { exitCode: EXIT_USAGE });
  }
  const host = match[2]!.replace(/^\[|\]$/g, "");
  return { destination: match[1] ? `${match[1]}@${host}` : host, ...(port !== undefined ? { port } : {}) };
}

/**
 * The ssh command of `omp auth-broker login <provider> --via <target>`: the login runs on the broker
 * host, so its vault keeps the tokens, while the provider's callback port on that host is tunnelled
 * to the same port here, where the browser is sent back to. A port moved on this machine
 * (OMP_OAUTH_<PROVIDER>_CALLBACK_PORT) is moved on the other end too, since the redirect names it.
 * `OMP_SSH_OPTIONS` adds ssh arguments (split on spaces, no shell: `-F ~/.ssh/broker.conf`, `-i key`).
 */
export function viaCommand(provider: OAuthProvider, via: string, options: { env?: Env; tty?: boolean } = {}): string[] {
  const env = options.env ?? process.env;
  const target = parseVia(via);
  const callbackPort = callbackPortOf(provider, env);
  const forward = callbackPort ? ["-L", `${callbackPort}:127.0.0.1:${callbackPort}`, "-o", "ExitOnForwardFailure=yes"] : [];
  const extra = userSshOptions(env);
  const moved = callbackPort !== undefined && callbackPort !== provider.callbackPort ? ["env", `${callbackPortVar(provider)}=${callbackPort}`] : [];
  return [
    "ssh",
    ...(options.tty ? ["-t"] : []),
    ...forward,
    ...(target.port !== undefined ? ["-p", String(target.port)] : []),
    ...extra,
    "--",
    target.destination,
    ...moved,
    "omp",
    "auth-broker",
    "login",
    provider.id,
  ];
}
