import type { Socket, TCPSocketListener } from "bun";

/** The most a client may send before its request head is complete. */
const MAX_HEAD_BYTES = 16 * 1024;
/** Bytes held for a side that is not reading; beyond it the tunnel is closed. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/** Whether `host` is one of `allowed`: the name itself, or below a `*.example.com` / `.example.com` entry. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  return allowed.some((entry) => {
    const rule = entry.toLowerCase().trim();
    if (rule.startsWith("*.") || rule.startsWith(".")) return name.endsWith(rule.slice(rule.indexOf("."))) || name === rule.slice(rule.indexOf(".") + 1);
    return name === rule;
  });
}

/** The target of a request head: `CONNECT host:port` or an absolute-URI request. */
function targetOf(head: string): { host: string; port: number; connect: boolean } | null {
  const [method, target] = head.split("\r\n", 1)[0]!.split(" ");
  if (!method || !target) return null;
  if (method === "CONNECT") {
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
    return match ? { host: match[1]!.replace(/^\[|\]$/g, ""), port: Number(match[2]), connect: true } : null;
  }
  try {
    const url = new URL(target);
    if (url.protocol !== "http:") return null;
    return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 80), connect: false };
  } catch {
    return null;
  }
}

interface Peer {
  /** The request head read so far (client sockets, before the tunnel is up). */
  head: Buffer;
  /** The other end of the tunnel. */
  other?: Socket<Peer>;
  /** The upstream connection is being made: client bytes wait in `early`. */
  connecting: boolean;
  early: Buffer[];
  /** Bytes waiting to be written to this socket; beyond MAX_PENDING_BYTES the tunnel is closed. */
  out: Buffer[];
  outBytes: number;
}

const peer = (): Peer => ({ head: Buffer.alloc(0), connecting: false, early: [], out: [], outBytes: 0 });

/** Writes to `socket`, queueing what it does not take now (flushed on drain). */
function send(socket: Socket<Peer>, data: Uint8Array): void {
  const state = socket.data;
  if (state.out.length === 0) {
    const written = socket.write(data);
    if (written === data.length) return;
    data = data.subarray(Math.max(0, written));
  }
  state.out.push(Buffer.from(data));
  state.outBytes += data.length;
  if (state.outBytes > MAX_PENDING_BYTES) socket.end();
}

function flush(socket: Socket<Peer>): void {
  const queued = Buffer.concat(socket.data.out.splice(0));
  socket.data.outBytes = 0;
  if (queued.length > 0) send(socket, queued);
}

function refuse(socket: Socket<Peer>, status: string, why: string): void {
  socket.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(why) + 1}\r\nConnection: close\r\n\r\n${why}\n`);
  socket.end();
}

/** Opens the upstream side for a client whose request head allowed it. */
function tunnel(client: Socket<Peer>, target: { host: string; port: number; connect: boolean }, first: Buffer): void {
  client.data.connecting = true;
  Bun.connect<Peer>({
    hostname: target.host,
    port: target.port,
    socket: {
      open(upstream) {
        upstream.data = { ...peer(), other: client };
        client.data.other = upstream;
        client.data.connecting = false;
        if (target.connect) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        for (const chunk of [first, ...client.data.early.splice(0)]) if (chunk.length > 0) send(upstream, chunk);
      },
      data(upstream, data) {
        send(client, data);
      },
      drain: flush,
      close() {
        client.end();
      },
      error() {
        client.end();
      },
    },
  }).catch((error: Error) => refuse(client, "502 Bad Gateway", `omp sandbox proxy: ${target.host}:${target.port}: ${error.message}`));
}

/** Where a request may go: the address to connect to (the name checked, or the address it was pinned to), or why not. */
export type ProxyDecision = { connectTo: string } | { refuse: string };
export type ProxyDecider = (target: { host: string; port: number; url?: string }) => ProxyDecision | Promise<ProxyDecision>;

function listDecider(hosts: readonly string[]): ProxyDecider {
  return ({ host }) => (hostAllowed(host, hosts) ? { connectTo: host } : { refuse: `omp sandbox: ${host} is not in sandbox.network (allowed: ${hosts.join(", ")})` });
}

/**
 * A plain-HTTP request goes on with `Connection: close`: a client reuses a proxy connection for
 * other hosts, which must not reach the upstream this one was allowed to.
 */
function closingHead(head: Buffer, end: number): Buffer {
  const lines = head.toString("latin1", 0, end).split("\r\n").filter((line) => !/^(proxy-)?connection:/i.test(line));
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`, "latin1"), head.subarray(end + 4)]);
}

/**
 * A filtering HTTP proxy on loopback: it tunnels CONNECT and forwards plain-HTTP requests where
 * `decide` allows, and answers 403 to the rest. `sandbox.network: [hosts]` decides by the list;
 * the browser tool asks the egress policy (core/tools/browser/egress-proxy.ts).
 */
export function startFilteringProxy(allowed: readonly string[] | ProxyDecider): TCPSocketListener<Peer> {
  const decide: ProxyDecider = typeof allowed === "function" ? allowed : listDecider(allowed);
  return Bun.listen<Peer>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = peer();
      },
      data(client, chunk) {
        const state = client.data;
        if (state.other) return send(state.other, chunk);
        if (state.connecting) return void state.early.push(Buffer.from(chunk));
        state.head = Buffer.concat([state.head, chunk]);
        const end = state.head.indexOf("\r\n\r\n");
        if (end === -1) {
          if (state.head.length > MAX_HEAD_BYTES) refuse(client, "431 Request Header Fields Too Large", "omp sandbox proxy: request head too large");
          return;
        }
        const headText = state.head.toString("latin1", 0, end);
        const target = targetOf(headText);
        if (!target) return refuse(client, "400 Bad Request", "omp sandbox proxy: only CONNECT host:port and absolute http:// requests");
        // A CONNECT's head is for us; a plain request's goes on as it came, closing after its answer.
        const first = target.connect ? state.head.subarray(end + 4) : closingHead(state.head, end);
        state.head = Buffer.alloc(0);
        state.connecting = true;
        const url = target.connect ? undefined : headText.split(" ", 2)[1];
        Promise.resolve(decide({ host: target.host, port: target.port, ...(url ? { url } : {}) }))
          .catch((error: Error) => ({ refuse: error.message }))
          .then((decision) => {
            if ("refuse" in decision) return refuse(client, "403 Forbidden", decision.refuse);
            tunnel(client, { ...target, host: decision.connectTo }, first);
          });
      },
      drain: flush,
      close(client) {
        client.data.other?.end();
      },
      error(client) {
        client.data.other?.end();
      },
    },
  });
}

let running: { hosts: string; listener: TCPSocketListener<Peer> } | null = null;

/** The proxy for this host list, started on first use and kept for the process (unref'd). */
export function filteringProxyPort(hosts: readonly string[]): number {
  const key = JSON.stringify(hosts);
  if (running?.hosts !== key) {
    running?.listener.stop(true);
    const listener = startFilteringProxy(hosts);
    listener.unref();
    running = { hosts: key, listener };
  }
  return running.listener.port;
}
