import { expect, test } from "bun:test";
import { Router } from "../../../core/http/router.ts";

const request = (method: string, path: string) => new Request(`http://127.0.0.1${path}`, { method });

test("routes match by method and whole path; :name segments come back decoded as params", async () => {
  const seen: string[] = [];
  const routes = new Router<string>()
    .get("/v1/usage", (_req, _params, who) => new Response(`usage for ${who}`))
    .post("/v1/credential/:id/refresh", (_req, params) => {
      seen.push(params.id!);
      return new Response("refreshed");
    });
  expect(await (await routes.match("GET", "/v1/usage")!(request("GET", "/v1/usage"), "tok_1")).text()).toBe("usage for tok_1");
  expect(routes.match("POST", "/v1/usage")).toBeUndefined();
  expect(routes.match("GET", "/v1/usage/extra")).toBeUndefined();
  expect(routes.match("GET", "/v1/usag")).toBeUndefined();
  await routes.match("POST", "/v1/credential/a%20b/refresh")!(request("POST", "/"), "");
  expect(seen).toEqual(["a b"]);
  expect(routes.match("POST", "/v1/credential//refresh")).toBeUndefined();
  expect(routes.match("POST", "/v1/credential/1/2/refresh")).toBeUndefined();
  // A malformed escape is no route rather than a thrown URIError.
  expect(routes.match("POST", "/v1/credential/%E0%A4%A/refresh")).toBeUndefined();
});

test("literal segments are not patterns: a dot matches only a dot", () => {
  const routes = new Router().get("/v1/a.b", () => new Response("ok"));
  expect(routes.match("GET", "/v1/a.b")).toBeDefined();
  expect(routes.match("GET", "/v1/axb")).toBeUndefined();
});
