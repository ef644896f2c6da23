// The page cache keeps paging cheap without growing without bound: by rows and by bytes.
import { expect, test } from "bun:test";
import { MAX_CACHE_BYTES, cachedPage, storePage } from "../../../core/web/page-cache.ts";
import { tempDir } from "../../support/temp.ts";

test("the oldest pages go once the cached texts add up to more than the byte cap; a page over the cap alone is not kept", () => {
  const env = { ...process.env, OMP_AGENT_DIR: tempDir("omp-page-cache-") };
  const big = "x".repeat(Math.floor(MAX_CACHE_BYTES / 3));
  const page = (n: number, text = big) => ({ url: `https://example.com/${n}`, finalUrl: `https://example.com/${n}`, contentType: "text/html", text, fetchedAt: Date.now() + n });
  for (const n of [1, 2, 3, 4]) storePage(page(n), 900, env);
  expect(cachedPage("https://example.com/1", 900, env)).toBeUndefined();
  for (const n of [2, 3, 4]) expect(cachedPage(`https://example.com/${n}`, 900, env)?.text.length).toBe(big.length);
  storePage(page(5, "y".repeat(MAX_CACHE_BYTES + 1)), 900, env);
  expect(cachedPage("https://example.com/5", 900, env)).toBeUndefined();
});
