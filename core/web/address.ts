import { isIP } from "node:net";

/**
 * Why an address is not on the public internet (loopback, private, link-local, ...), or undefined
 * when it is. A page must not make the model probe the user's own network, so such addresses need
 * the user's approval.
 */
export function privateAddressKind(address: string): string | undefined {
  const version = isIP(address);
  if (version === 4) return ipv4Kind(address);
  if (version === 6) return ipv6Kind(address.toLowerCase());
  return undefined;
}

function ipv4Kind(address: string): string | undefined {
  const [a, b] = address.split(".").map(Number) as [number, number];
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "carrier-grade NAT";
  if (a === 0) return "unspecified";
  if (a >= 224) return "multicast or reserved";
  return undefined;
}

function ipv6Kind(address: string): string | undefined {
  if (address === "::1") return "loopback";
  if (address === "::") return "unspecified";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return ipv4Kind(mapped[1]!);
  if (/^f[cd]/.test(address)) return "unique-local (private)";
  if (/^fe[89ab]/.test(address)) return "link-local";
  if (address.startsWith("ff")) return "multicast";
  return undefined;
}

/** Whether `host` (with `port`) is in the user's `web.allowHosts`: `name`, `name:port`, an address, `[v6]:port`. */
export function hostAllowed(allowHosts: readonly string[], host: string, port: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return allowHosts.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted === bare || wanted === `${bare}:${port}` || wanted === `[${bare}]:${port}` || wanted === `[${bare}]`;
  });
}
