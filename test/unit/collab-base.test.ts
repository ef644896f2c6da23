import { describe, expect, test } from "bun:test";
import { joinLink, newRoom, parseLink, viewOnly, webLink } from "../../core/collab/link.ts";
import { importRoomKey, open, seal } from "../../core/collab/crypto.ts";
import { splitPeer, withPeer } from "../../core/collab/relay-frames.ts";

describe("collab links", () => {
  test("every printed form parses back to the same room, key and token", () => {
    const room = newRoom("ws://127.0.0.1:7475");
    for (const text of [joinLink(room), webLink(room), `"${joinLink(room)}"`]) {
      const parsed = parseLink(text, "wss://my.omp.sh");
      expect(parsed.relay).toBe("ws://127.0.0.1:7475");
      expect(parsed.roomId).toBe(room.roomId);
      expect([...parsed.key]).toEqual([...room.key]);
      expect([...parsed.writeToken!]).toEqual([...room.writeToken!]);
    }
    const bare = joinLink(room).split("/r/")[1]!;
    expect(parseLink(bare, "my.omp.sh").relay).toBe("wss://my.omp.sh");
    expect(parseLink(bare.replace(".", "%23"), "my.omp.sh").roomId).toBe(room.roomId);
    // The browser line as /collab shows it, without its scheme (the original's `/join my.omp.sh/#…`).
    const secure = newRoom("wss://relay.example.com");
    const shown = parseLink(webLink(secure).replace(/^https:\/\//, ""), "wss://my.omp.sh");
    expect(shown.relay).toBe("wss://relay.example.com");
    expect([...shown.writeToken!]).toEqual([...secure.writeToken!]);
  });

  test("a view-only link has no write token", () => {
    const room = newRoom("wss://relay.example.com");
    const parsed = parseLink(webLink(viewOnly(room)), "x");
    expect(parsed.writeToken).toBeUndefined();
    expect(webLink(room).startsWith("https://relay.example.com/#")).toBe(true);
  });

  test("plain ws to another host, damaged keys and junk are refused with a reason", () => {
    expect(() => parseLink("ws://relay.example.com/r/abcdefghij.AAAA", "x")).toThrow(/localhost only/);
    expect(() => parseLink("abcdefghij.AAAA", "wss://r.example")).toThrow(/bytes/);
    expect(() => parseLink("not a link", "wss://r.example")).toThrow(/collab link/);
  });
});

describe("collab sealing", () => {
  test("a frame opens only with its room's key and id, and not after a change", async () => {
    const room = newRoom("ws://127.0.0.1:1");
    const key = await importRoomKey(room.key);
    const text = new TextEncoder().encode("secret words");
    const frame = await seal(key, room.roomId, text);
    expect(new TextDecoder().decode(frame)).not.toContain("secret");
    expect(new TextDecoder().decode(await open(key, room.roomId, frame))).toBe("secret words");
    await expect(open(key, "another-room", frame)).rejects.toThrow(/did not open/);
    const other = await importRoomKey(newRoom("ws://127.0.0.1:1").key);
    await expect(open(other, room.roomId, frame)).rejects.toThrow(/did not open/);
    const changed = frame.slice();
    changed[20]! ^= 1;
    await expect(open(key, room.roomId, changed)).rejects.toThrow(/did not open/);
  });

  test("the routing prefix round-trips", () => {
    const framed = withPeer(7, new Uint8Array([1, 2, 3]));
    const split = splitPeer(framed)!;
    expect(split.peer).toBe(7);
    expect([...split.sealed]).toEqual([1, 2, 3]);
  });
});
