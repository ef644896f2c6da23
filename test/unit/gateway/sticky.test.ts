import { expect, test } from "bun:test";
import { StickyCredentials, conversationHash } from "../../../core/gateway/sticky.ts";
import { isLoopback, parseBind } from "../../../core/http/bind.ts";
import { tokenMatches } from "../../../core/http/bearer.ts";

const creds = ["a", "b", "c"].map((label) => ({ key: `sk-${label}`, source: "test", label }));

test("a conversation keeps its credential; a blocked one moves it to another for good", () => {
  const sticky = new StickyCredentials();
  const first = sticky.pick("conv-1", creds)!;
  for (let i = 0; i < 5; i++) expect(sticky.pick("conv-1", creds)!.label).toBe(first.label);
  sticky.block(first.label, 60_000);
  const moved = sticky.pick("conv-1", creds)!;
  expect(moved.label).not.toBe(first.label);
  expect(sticky.pick("conv-1", creds)!.label).toBe(moved.label);
  // Conversations spread over the accounts.
  const labels = new Set(Array.from({ length: 40 }, (_, i) => sticky.pick(`other-${i}`, creds)!.label));
  expect(labels.size).toBeGreaterThan(1);
});

test("when every credential is at its limit the soonest to reset is still tried; one already tried is not", () => {
  const sticky = new StickyCredentials();
  sticky.block("a", 50_000);
  sticky.block("b", 10_000);
  sticky.block("c", 90_000);
  expect(sticky.pick("conv", creds)!.label).toBe("b");
  expect(sticky.pick("conv", creds, new Set(["a", "b", "c"]))).toBeUndefined();
});

test("the conversation hash depends on its start only", () => {
  expect(conversationHash(["sys", "hello"])).toBe(conversationHash(["sys", "hello"]));
  expect(conversationHash(["sys", "hello"])).not.toBe(conversationHash(["sys", "hello!"]));
});

test("--bind forms and what counts as loopback", () => {
  expect(parseBind("127.0.0.1:4000")).toEqual({ hostname: "127.0.0.1", port: 4000 });
  expect(parseBind(":5000")).toEqual({ hostname: "127.0.0.1", port: 5000 });
  expect(parseBind("[::1]:4001")).toEqual({ hostname: "::1", port: 4001 });
  expect(() => parseBind("localhost:http")).toThrow("is not host:port");
  expect(isLoopback("127.0.0.2")).toBe(true);
  expect(isLoopback("::1")).toBe(true);
  expect(isLoopback("0.0.0.0")).toBe(false);
  expect(isLoopback("192.168.1.10")).toBe(false);
});

test("tokens compare by digest: equal only when identical", () => {
  expect(tokenMatches("omp-gw-abc", "omp-gw-abc")).toBe(true);
  expect(tokenMatches("omp-gw-abd", "omp-gw-abc")).toBe(false);
  expect(tokenMatches("omp-gw-ab", "omp-gw-abc")).toBe(false);
  expect(tokenMatches(undefined, "omp-gw-abc")).toBe(false);
});
