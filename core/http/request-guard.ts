/**
 * What a loopback service must refuse before it looks at a request, shared by the gateway and the
 * broker: pages in the user's browser (an `Origin` the user did not allow) and DNS rebinding (a
 * `Host` that is a name nobody configured: an attacker's domain pointed at 127.0.0.1).
 */
export interface RequestGuardOptions {
  /** Origins allowed to call (`--allow-origin`); `*` allows any. None by default. */
  allowOrigins?: readonly string[];
  /** Host names allowed besides loopback names, IP literals and the bound name (`--allow-host`). */
  allowHosts?: readonly string[];
  /** The host the service is bound to. */
  boundHost: string;
}

export type GuardRefusal = { status: 403; message: string };

/** The name in a Host header, without the port and brackets, lower-cased. */
function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(1, value.indexOf("]") > 0 ? value.indexOf("]") : undefined);
  const colon = value.indexOf(":");
  return colon >= 0 ? value.slice(0, colon) : value;
}

/** IP literals cannot be rebound (only a DNS name can point somewhere new), so any of them is fine. */
function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || (host.includes(":") && /^[0-9a-f:.]+$/.test(host));
}

function hostAllowed(host: string, options: RequestGuardOptions): boolean {
  if (host === "localhost" || host.endsWith(".localhost") || isIpLiteral(host)) return true;
  if (host === options.boundHost.toLowerCase()) return true;
  return (options.allowHosts ?? []).some((allowed) => allowed.toLowerCase() === host || allowed === "*");
}

function originAllowed(origin: string, options: RequestGuardOptions): boolean {
  const wanted = origin.replace(/\/+$/, "").toLowerCase();
  return (options.allowOrigins ?? []).some((allowed) => allowed === "*" || allowed.replace(/\/+$/, "").toLowerCase() === wanted);
}

/** The refusal for a request from a browser page or through a rebound name; undefined when it may go on. */
export function guardRequest(headers: Headers, options: RequestGuardOptions): GuardRefusal | undefined {
  const host = headers.get("host");
  if (host !== null && !hostAllowed(hostName(host), options)) {
    return {
      status: 403,
      message: `Host ${JSON.stringify(host)} is not this service's address (a DNS-rebinding page looks like this); call it by IP or localhost, or allow the name with --allow-host ${hostName(host)}`,
    };
  }
  const origin = headers.get("origin");
  if (origin !== null && !originAllowed(origin, options)) {
    return { status: 403, message: `requests from web pages are refused (Origin ${JSON.stringify(origin)}); allow that origin with --allow-origin ${origin}` };
  }
  return undefined;
}

/** Whether the body is declared as JSON (`application/json`, any parameters): the only type a browser cannot send without a preflight. */
export function isJsonBody(headers: Headers): boolean {
  const type = (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json";
}
