// Bun's fetch honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY by itself, so the adapters need no proxy
// code; this pins that down with a counting forward proxy in front of the stand-in.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type Standin, startStandin } from "../../support/standin/index.ts";

let standin: Standin;
let proxy: ReturnType<typeof Bun.serve>;
const proxied: string[] = [];

beforeAll(async () => {
  standin = await startStandin();
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A forward proxy for http:// targets receives the absolute URL in the request line.
    async fetch(req) {
      proxied.push(`${req.method} ${req.url}`);
      return fetch(req.url, { method: req.method, headers: req.headers, body: await req.arrayBuffer() });
    },
  });
});
afterAll(async () => {
  await proxy.stop(true);
  await standin.close();
});

async function child(env: Record<string, string>): Promise<{ stopReason: string; content: unknown }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "proxy-child.ts")], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", STANDIN_URL: standin.url, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`child failed (${code}): ${err}`);
  return JSON.parse(out);
}

test("requests go through HTTP_PROXY, and NO_PROXY bypasses it", async () => {
  const proxyUrl = `http://127.0.0.1:${proxy.port}`;
  standin.setScript([{ text: "via the proxy" }, { text: "direct" }]);

  const viaProxy = await child({ HTTP_PROXY: proxyUrl });
  expect(viaProxy).toEqual({ stopReason: "stop", content: [{ type: "text", text: "via the proxy" }] });
  expect(proxied).toEqual([`POST ${standin.url}/v1/chat/completions`]);

  const direct = await child({ HTTP_PROXY: proxyUrl, NO_PROXY: "127.0.0.1" });
  expect(direct.content).toEqual([{ type: "text", text: "direct" }]);
  expect(proxied).toHaveLength(1);
  expect(standin.requests).toHaveLength(2);
});
