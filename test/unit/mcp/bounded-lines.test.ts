import { expect, test } from "bun:test";
import { BoundedLineBuffer } from "../../../core/mcp/bounded-lines.ts";

const tooLarge = (bytes: number) => `result of ${bytes} bytes`;

test("an over-long line is skipped as it streams and answers its request with an error; the next line still arrives", () => {
  const buffer = new BoundedLineBuffer(1000, tooLarge);
  // Python servers put the id first, JS ones last: both are found.
  const first = Buffer.from(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${"x".repeat(5000)}"}]}}\n`);
  const second = Buffer.from(`{"result":{"content":[{"type":"text","text":"${"y".repeat(5000)}","id":99}]},"jsonrpc":"2.0","id":"req-8"}\n`);
  const small = Buffer.from(`{"jsonrpc":"2.0","id":9,"result":{"content":[]}}\n`);
  const stream = Buffer.concat([first, second, small]);
  for (let at = 0; at < stream.length; at += 333) buffer.append(stream.subarray(at, at + 333));
  expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: `result of ${first.length - 1} bytes`, data: { ompResultTooLarge: true } } } as any);
  expect((buffer.readMessage() as any).id).toBe("req-8");
  expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 9, result: { content: [] } } as any);
  expect(buffer.readMessage()).toBeNull();
});
