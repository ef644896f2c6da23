// node:net and node:dns load when an address is first judged or resolved: importing node:net
// alone costs every run ~1.7 MiB of peak RSS (bench/results/rss-floor.md), and most runs fetch nothing.
const isIP = (text: string): number => (require("node:net") as typeof import("node:net")).isIP(text);

/**
 * Why an address is not on the public internet (loopback, private, link-local, ...), or undefined
 * when it is. A page must not make the model probe the user's own network, so such addresses need
 * the user's approval. IPv6 forms that carry an IPv4 address (mapped `::ffff:127.0.0.1` or
 * `::ffff:7f00:1`, compatible, translated, NAT64, 6to4, Teredo) are judged by that address.
 */
export function privateAddressKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const version = isIP(bare);
  if (version === 4) return ipv4Kind(bare.split(".").map(Number));
  if (version === 6) return ipv6Kind(ipv6Groups(bare.toLowerCase()));
  return undefined;
}

function ipv4Kind([a, b, c]: number[]): string | undefined {
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b! >= 64 && b! <= 127) return "carrier-grade NAT";
  if (a === 0) return "unspecified";
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19))) return "reserved";
  if (a! >= 224) return "multicast or reserved";
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad becomes two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function embeddedIpv4(high: number, low: number): number[] {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
}

function ipv6Kind(g: number[]): string | undefined {
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), ::ffff:0:a.b.c.d (translated).
  if (zeroUpTo(5) && g[5] === 0xffff) return ipv4Kind(embeddedIpv4(g[6]!, g[7]!));
  if (zeroUpTo(6)) return ipv4Kind(embeddedIpv4(g[6]!, g[7]!)) ?? "IPv4-compatible (deprecated)";
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return ipv4Kind(embeddedIpv4(g[6]!, g[7]!));
  // NAT64: the well-known prefix carries the IPv4 address; the local-use prefix is the user's own network.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) return ipv4Kind(embeddedIpv4(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "NAT64 local-use (private)";
  if (g[0] === 0x2002) return ipv4Kind(embeddedIpv4(g[1]!, g[2]!));
  // Teredo carries the client's IPv4 address inverted.
  if (g[0] === 0x2001 && g[1] === 0) return ipv4Kind(embeddedIpv4(~g[6]! & 0xffff, ~g[7]! & 0xffff));
  if (g[0] === 0x100 && zeroUpTo(4)) return "discard-only";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "documentation";
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local (private)";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local (private)";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

/** The addresses `host` (a name or an address) resolves to, IPv4 first; throws what the resolver threw. */
export async function resolveHost(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  const { lookup } = require("node:dns/promises") as typeof import("node:dns/promises");
  return (await lookup(host, { all: true })).sort((a, b) => a.family - b.family).map((entry) => entry.address);
}

/** The first of `addresses` that is not on the public internet, with why (see {@link privateAddressKind}). */
export function firstPrivate(addresses: readonly string[]): { address: string; kind: string } | undefined {
  for (const address of addresses) {
    const kind = privateAddressKind(address);
    if (kind) return { address, kind };
  }
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
