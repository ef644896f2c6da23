import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Where a service listens: parsed from `--bind` and checked against `--public` (both services, one rule). */
export interface BindAddress {
  hostname: string;
  port: number;
}

/** `host:port`, `[v6]:port`, `:port` or a bare port; the host defaults to loopback. */
export function parseBind(text: string): BindAddress {
  const value = text.trim();
  let host = "127.0.0.1";
  let portText = value;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(value);
  if (v6) {
    host = v6[1]!;
    portText = v6[2]!;
  } else if (value.includes(":")) {
    const at = value.lastIndexOf(":");
    host = value.slice(0, at) || host;
    portText = value.slice(at + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new OmpError(`--bind ${JSON.stringify(text)} is not host:port (e.g. 127.0.0.1:4000, 0.0.0.0:4000 or :4000)`, { exitCode: EXIT_USAGE });
  }
  return { hostname: host, port };
}

/**
 * The address, refused when other machines could reach it and the user did not say `--public`:
 * a service that hands out model quota or API keys must never become public by a typo.
 */
export function checkedBind(text: string, options: { public?: boolean; service: string }): BindAddress {
  const bind = parseBind(text);
  if (!isLoopback(bind.hostname) && !options.public) {
    throw new OmpError(
      `${options.service}: --bind ${bind.hostname} is reachable from other machines; add --public to mean it, or bind a loopback address (127.0.0.1)`,
      { exitCode: EXIT_USAGE },
    );
  }
  return bind;
}

/** Whether only this machine can reach the address: 127/8, ::1 and localhost. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostPart(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** The address as bound, wildcards and all: what a banner shows. */
export function boundAddress(bind: BindAddress, scheme = "http"): string {
  return `${scheme}://${hostPart(bind.hostname)}:${bind.port}`;
}

/** A URL clients on this machine use to reach the address; a wildcard bind is reached through loopback. */
export function bindUrl(bind: BindAddress, scheme = "http"): string {
  const host = bind.hostname === "0.0.0.0" ? "127.0.0.1" : bind.hostname === "::" ? "::1" : bind.hostname;
  return `${scheme}://${hostPart(host)}:${bind.port}`;
}
