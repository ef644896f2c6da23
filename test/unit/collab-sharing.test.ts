import { describe, expect, test } from "bun:test";
import { importRoomKey } from "../../core/collab/crypto.ts";
import { newRoom } from "../../core/collab/link.ts";
import { GuestMessage, HostMessage } from "../../core/collab/messages.ts";
import { openJson, sealJson } from "../../core/collab/sealed-json.ts";
import { trimStrings } from "../../core/collab/trim.ts";

describe("what a host shares is bounded", () => {
  test("long strings are cut with how much stayed on the host; the shape and short values stay", () => {
    const message = { role: "toolResult", content: [{ type: "text", text: "x".repeat(100) }, { type: "text", text: "short" }], isError: false, n: 3 };
    const trimmed = trimStrings(message, 10);
    expect(trimmed.content[0]!.text).toBe(`${"x".repeat(10)}… (90 more characters on the host)`);
    expect(trimmed.content[1]!.text).toBe("short");
    expect(trimmed.isError).toBe(false);
    expect(trimmed.n).toBe(3);
    expect(message.content[0]!.text.length).toBe(100);
  });
});

describe("sealed messages", () => {
  test("a message opens with its room's key as what the schema says, and anything else is dropped", async () => {
    const room = newRoom("ws://127.0.0.1:1");
    const other = newRoom("ws://127.0.0.1:1");
    const key = await importRoomKey(room.key);
    const prompt = { type: "prompt", text: "hello" };
    const frame = await sealJson(key, room.roomId, prompt);
    expect(await openJson(key, room.roomId, frame, GuestMessage)).toEqual(prompt as GuestMessage);
    // Another room's key or id, a changed byte, junk, or a message of the other direction: nothing.
    expect(await openJson(await importRoomKey(other.key), room.roomId, frame, GuestMessage)).toBeUndefined();
    expect(await openJson(key, other.roomId, frame, GuestMessage)).toBeUndefined();
    const changed = frame.slice();
    changed[changed.length - 1]! ^= 1;
    expect(await openJson(key, room.roomId, changed, GuestMessage)).toBeUndefined();
    expect(await openJson(key, room.roomId, new Uint8Array(40), GuestMessage)).toBeUndefined();
    expect(await openJson(key, room.roomId, frame, HostMessage)).toBeUndefined();
    expect(await openJson(key, room.roomId, await sealJson(key, room.roomId, { type: "prompt", text: "" }), GuestMessage)).toBeUndefined();
  });
});
