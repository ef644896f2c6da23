import { expect, test } from "bun:test";
import { BodyTooLarge, readLimitedText } from "../../../core/http/body-limit.ts";

/** A chunked body (no content-length) of `chunks` pieces of 1 KB, counting how many were pulled. */
function chunked(chunks: number) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(1024).fill(120));
    },
  });
  return { response: new Response(body), pulled: () => pulled };
}

test("a response's chunked body is given up once it passes the limit, not read whole (usage answers, stand-in endpoints)", async () => {
  const big = chunked(10_000);
  await expect(readLimitedText(big.response, 8 * 1024)).rejects.toBeInstanceOf(BodyTooLarge);
  expect(big.pulled()).toBeLessThan(20);
  const small = chunked(3);
  expect(await readLimitedText(small.response, 8 * 1024)).toBe("x".repeat(3 * 1024));
});

test("a declared length over the limit is refused before any byte is read", async () => {
  const response = new Response("x".repeat(100), { headers: { "content-length": "100" } });
  await expect(readLimitedText(response, 10)).rejects.toThrow("larger than the limit");
  expect(response.bodyUsed).toBe(false);
});
