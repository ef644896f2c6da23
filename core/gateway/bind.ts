import { OmpError } from "../errors/omp-error.ts";

export interface BindAddress {
  hostname: string;
  port: number;
}

export const DEFAULT_BIND = "127.0.0.1:4000";

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
    throw new OmpError(`--bind ${JSON.stringify(text)} is not host:port (e.g. 127.0.0.1:4000, 0.0.0.0:4000 or :4000)`, { exitCode: 2 });
  }
  return { hostname: host, port };
}

/** Whether only this machine can reach the address: 127/8, ::1 and localhost. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A URL clients use to reach the address; a wildcard bind is reached through loopback. */
export function bindUrl(bind: BindAddress): string {
  const host = bind.hostname === "0.0.0.0" || bind.hostname === "::" ? "127.0.0.1" : bind.hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${bind.port}`;
}
