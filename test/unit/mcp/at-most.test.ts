// The first request's wait for MCP servers: it ends with the servers' starts, failed ones included,
// or at its limit, and a failed start never becomes an unhandled rejection that ends the process.
import { expect, test } from "bun:test";
import { atMost } from "../../../core/mcp/manager.ts";

test("a start that fails ends the wait at once, without an unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const started = performance.now();
    await atMost(Promise.reject(new Error("server exited")), 60_000);
    expect(performance.now() - started).toBeLessThan(30_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("a start that never ends is waited for only up to the limit", async () => {
  let settled = false;
  await atMost(new Promise(() => {}), 20).then(() => (settled = true));
  expect(settled).toBe(true);
});
