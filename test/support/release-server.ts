import { createReadStream, existsSync, statSync } from "node:fs";
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join, normalize } from "node:path";
import { Transform } from "node:stream";

/**
 * A release server on loopback serving a directory laid out like release/out, with faults that a
 * test can switch on per path: replaced content, a body cut short, the whole server dying in the
 * middle of a transfer, a slow link. node:http rather than Bun.serve: a fault needs to send a
 * Content-Length and then break the connection, which only a raw response allows.
 */

export type Fault =
  | { kind: "replace"; body: Uint8Array | string }
  | { kind: "status"; code: number }
  /** Sends the real Content-Length, then only this many bytes, then closes the connection. */
  | { kind: "truncate"; bytes: number }
  /** Sends this many bytes, then the server closes every connection and stops listening. */
  | { kind: "die"; bytes: number }
  /** Throttles the body to this many bytes per 100 ms. */
  | { kind: "slow"; bytesPer100ms: number };

export interface ReleaseServer {
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  fault(path: string, fault: Fault): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

function limit(bytes: number, onDone: () => void): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (sent >= bytes) return callback();
      const part = chunk.subarray(0, bytes - sent);
      sent += part.length;
      this.push(part);
      if (sent >= bytes) {
        // Let the bytes reach the socket before breaking the connection.
        setTimeout(onDone, 50);
      }
      callback();
    },
  });
}

function throttle(bytesPer100ms: number): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const pieces: Buffer[] = [];
      for (let offset = 0; offset < chunk.length; offset += bytesPer100ms) pieces.push(chunk.subarray(offset, offset + bytesPer100ms));
      const next = () => {
        const piece = pieces.shift();
        if (!piece) return callback();
        this.push(piece);
        setTimeout(next, 100);
      };
      next();
    },
  });
}

export async function startReleaseServer(root: string): Promise<ReleaseServer> {
  const faults = new Map<string, Fault>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server;

  const die = () => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const fault = faults.get(path);
    if (fault?.kind === "status") {
      res.writeHead(fault.code).end();
      return;
    }
    if (fault?.kind === "replace") {
      const body = typeof fault.body === "string" ? Buffer.from(fault.body) : Buffer.from(fault.body);
      res.writeHead(200, { "content-length": body.length }).end(body);
      return;
    }
    const file = join(root, normalize(path).replace(/^(\.\.[/\\])+/, ""));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-length": statSync(file).size, "content-type": "application/octet-stream" });
    const stream = createReadStream(file);
    if (fault?.kind === "truncate") stream.pipe(limit(fault.bytes, () => res.socket?.destroy())).pipe(res);
    else if (fault?.kind === "die") stream.pipe(limit(fault.bytes, die)).pipe(res);
    else if (fault?.kind === "slow") stream.pipe(throttle(fault.bytesPer100ms)).pipe(res);
    else stream.pipe(res);
  };

  server = createServer(handle);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fault: (path, fault) => faults.set(path, fault),
    clearFaults: () => faults.clear(),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        if (!server.listening) resolve();
      }),
  };
}

export interface CountingProxy {
  url: string;
  /** Absolute URLs forwarded so far. */
  requests: string[];
  stop(): Promise<void>;
}

/** A plain HTTP forward proxy (absolute-form requests only) that records what went through it. */
export async function startCountingProxy(): Promise<CountingProxy> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const target = req.url ?? "";
    requests.push(target);
    if (!/^http:\/\//.test(target)) {
      res.writeHead(400).end("absolute http:// URLs only");
      return;
    }
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, connection: "close" } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
