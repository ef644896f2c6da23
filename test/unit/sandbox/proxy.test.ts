// The filtering proxy behind `sandbox.network: [hosts]` and the browser tool's egress: CONNECT tunnels and
// plain-HTTP requests the list (or the decider) allows go through, others get 403 with the reason.
import { describe, expect, test } from "bun:test";
import { hostAllowed, startFilteringProxy } from "../../../core/sandbox/proxy.ts";

/** Sends `request` to the proxy on a raw socket and returns everything it answers until it closes or `until` shows. */
async function exchange(port: number, request: string, then?: string, until = "\r\n\r\n"): Promise<string> {
  let received = "";
  let sentSecond = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer; got ${JSON.stringify(received)}`)), 5000);
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(request);
        },
        data(socket, data) {
          received += Buffer.from(data).toString();
          if (then && !sentSecond && received.includes("\r\n\r\n")) {
            sentSecond = true;
            received = "";
            socket.write(then);
          } else if ((!then || sentSecond) && received.includes(until)) {
            clearTimeout(timer);
            socket.end();
            resolve(received);
          }
        },
        close() {
          clearTimeout(timer);
          resolve(received);
        },
      },
    });
  });
}

describe("filtering proxy", () => {
  test("hostAllowed: exact names and *.domain entries, case and trailing dots aside", () => {
    expect(hostAllowed("registry.npmjs.org", ["registry.npmjs.org"])).toBe(true);
    expect(hostAllowed("REGISTRY.npmjs.org.", ["registry.npmjs.org"])).toBe(true);
    expect(hostAllowed("api.github.com", ["*.github.com"])).toBe(true);
    expect(hostAllowed("github.com", ["*.github.com"])).toBe(true);
    expect(hostAllowed("evilgithub.com", ["*.github.com"])).toBe(false);
    expect(hostAllowed("github.com.evil.example", ["github.com"])).toBe(false);
  });

  test("CONNECT to a listed host tunnels; to another host it is refused with the reason", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => new Response(`tunnelled ${new URL(request.url).pathname}`) });
    const proxy = startFilteringProxy(["127.0.0.1"]);
    try {
      const through = await exchange(proxy.port, `CONNECT 127.0.0.1:${server.port} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`, `GET /inside HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, "tunnelled /inside");
      expect(through).toContain("tunnelled /inside");
      const refused = await exchange(proxy.port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
      expect(refused).toStartWith("HTTP/1.1 403 Forbidden");
      expect(refused).toContain("example.com is not in sandbox.network");
      const garbage = await exchange(proxy.port, "HELLO\r\n\r\n");
      expect(garbage).toStartWith("HTTP/1.1 400");
    } finally {
      proxy.stop(true);
      server.stop(true);
    }
  });

  test("a decider (the browser's egress check) sees each plain request's URL and may pin its address; the request goes on closing after its answer, so a reused connection never reaches another host", async () => {
    const heads: string[] = [];
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => (heads.push(request.headers.get("connection") ?? ""), new Response(`served ${new URL(request.url).pathname}`)) });
    const asked: { host: string; port: number; url?: string }[] = [];
    const proxy = startFilteringProxy(async (target) => {
      asked.push(target);
      return target.host === "dev.test" ? { connectTo: "127.0.0.1" } : { refuse: `not ${target.host}` };
    });
    try {
      const url = `http://dev.test:${server.port}/page`;
      const answer = await exchange(proxy.port, `GET ${url} HTTP/1.1\r\nHost: dev.test:${server.port}\r\nProxy-Connection: keep-alive\r\n\r\n`, undefined, "served /page");
      expect(answer).toContain("served /page");
      expect(heads).toEqual(["close"]);
      expect(asked).toEqual([{ host: "dev.test", port: server.port!, url }]);
      const refused = await exchange(proxy.port, `CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n`);
      expect(refused).toStartWith("HTTP/1.1 403 Forbidden");
      expect(refused).toContain("not other.test");
    } finally {
      proxy.stop(true);
      server.stop(true);
    }
  });
});
