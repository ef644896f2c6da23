type Env = Record<string, string | undefined>;

/**
 * The proxy for `url` from HTTPS_PROXY / HTTP_PROXY (either case) unless NO_PROXY names its host
 * (`*`, exact names, `.suffix` or `suffix` domains, optional `:port`), as curl reads them.
 */
export function proxyFor(url: URL, env: Env = process.env): string | undefined {
  const pick = (name: string) => env[name] ?? env[name.toLowerCase()];
  const proxy = url.protocol === "https:" ? (pick("HTTPS_PROXY") ?? pick("HTTP_PROXY")) : pick("HTTP_PROXY");
  if (!proxy) return undefined;
  const noProxy = pick("NO_PROXY");
  if (noProxy && bypassed(url, noProxy)) return undefined;
  return proxy;
}

function bypassed(url: URL, noProxy: string): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((raw) => {
      const entry = raw.toLowerCase();
      if (entry === "*") return true;
      const [name, wantedPort] = entry.startsWith("[") ? [entry.slice(1, entry.indexOf("]")), entry.split("]:")[1]] : entry.split(":");
      if (wantedPort && wantedPort !== port) return false;
      const domain = name!.replace(/^\*?\./, "");
      return host === domain || host.endsWith(`.${domain}`);
    });
}
