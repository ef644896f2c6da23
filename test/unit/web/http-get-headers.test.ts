// An API call's own headers (the github tool's Authorization) go to the origin asked for, never
// to where a redirect points; the egress question carries what the user's configuration names.
import { afterAll, expect, test } from "bun:test";
import { httpGet } from "../../../core/web/http-get.ts";
import { defaultWebSettings } from "../../../core/web/default-settings.ts";
import type { EgressRequest } from "../../../core/permissions/egress.ts";

const received: { server: string; authorization: string | null; method: string }[] = [];
const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (received.push({ server: "other", authorization: request.headers.get("authorization"), method: request.method }), new Response("elsewhere")) });
const api: ReturnType<typeof Bun.serve> = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request): Response {
    received.push({ server: "api", authorization: request.headers.get("authorization"), method: request.method });
    const path = new URL(request.url).pathname;
    if (path === "/same") return Response.redirect(`http://127.0.0.1:${api.port}/final`, 302);
    if (path === "/away") return Response.redirect(`http://127.0.0.1:${other.port}/final`, 302);
    return new Response("here");
  },
});
afterAll(() => {
  api.stop(true);
  other.stop(true);
});

const asked: EgressRequest[] = [];
const options = {
  settings: defaultWebSettings(),
  signal: AbortSignal.timeout(60_000),
  toolName: "github",
  egress: async (request: EgressRequest) => (asked.push(request), { allow: true as const }),
  headers: { authorization: "Bearer secret-token" },
  configured: "GITHUB_API_URL",
};

test("headers follow a redirect on the same origin and are dropped on another", async () => {
  received.length = 0;
  const same = await httpGet(`http://127.0.0.1:${api.port}/same`, { ...options, signal: AbortSignal.timeout(10_000) });
  expect(new TextDecoder().decode(same.body)).toBe("here");
  const away = await httpGet(`http://127.0.0.1:${api.port}/away`, { ...options, signal: AbortSignal.timeout(10_000) });
  expect(new TextDecoder().decode(away.body)).toBe("elsewhere");
  expect(received).toEqual([
    { server: "api", authorization: "Bearer secret-token", method: "GET" },
    { server: "api", authorization: "Bearer secret-token", method: "GET" },
    { server: "api", authorization: "Bearer secret-token", method: "GET" },
    { server: "other", authorization: null, method: "GET" },
  ]);
  expect(asked[0]!.configured).toBe("GITHUB_API_URL");
  expect(asked[0]!.privateAddress?.kind).toBe("loopback");
});
