// `omp relay serve` on the compiled omp: hosts need its token, browser pages from other origins and
// rebound Host names are refused, frames route between one host and its guests as
// core/collab/relay-frames.ts says (sealed with the real crypto, opened by the guests), the host can
// leave and come back while guests wait, every limit refuses with a reason, and the log holds sizes
// but no plaintext.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importRoomKey, open, seal } from "../../core/collab/crypto.ts";
import { newRoom } from "../../core/collab/link.ts";
import { HOST_CLAIM_HEADER, MAX_FRAME_BYTES, splitPeer, withPeer } from "../../core/collab/relay-frames.ts";
import { runOmp, tempDir } from "../support/omp.ts";
import { RelayClient, TEST_HOST_CLAIM, rawGuest, startRelay, waitUntil } from "../support/relay.ts";

const PHRASE = "the secret plan is PURPLE-OTTER-41";
const home = tempDir("omp-relay-");
const tokenFile = join(home, "relay.token");
const relay = await startRelay(home, ["--token-file", tokenFile]);
const token = readFileSync(tokenFile, "utf8").trim();
const auth = { authorization: `Bearer ${token}` };
afterAll(() => relay.stop());

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

async function room() {
  const link = newRoom(relay.url);
  return { link, key: await importRoomKey(link.key), id: link.roomId };
}

describe("omp relay serve", () => {
  test("made a 0600 token file; a host without the token is refused with how to send it, with it is let in; guests need none", async () => {
    expect(token).toStartWith("omp-relay-");
    expect((await Bun.file(tokenFile).stat()).mode & 0o777).toBe(0o600);
    const { id } = await room();
    const refused = await fetch(`${relay.url}/r/${id}?role=host`, { headers: { upgrade: "websocket", connection: "upgrade" } });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain("Authorization: Bearer");
    await expect(RelayClient.connect(relay.url, id, "host", { authorization: "Bearer omp-relay-wrong-token-000000" })).rejects.toThrow();
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    const guest = await RelayClient.connect(relay.url, id, "guest");
    await host.notice((n) => n.t === "join");
    host.close();
    guest.close();
  });

  test("a rebound Host name and a foreign page's Origin are refused; the relay's own origin is let in", async () => {
    const health = await fetch(`${relay.url}/healthz`);
    expect(await health.json()).toMatchObject({ status: "ok" });
    const rebound = await fetch(`${relay.url}/healthz`, { headers: { host: "attacker.example:7475" } });
    expect(rebound.status).toBe(403);
    expect(await rebound.text()).toContain("--allow-host attacker.example");
    const { id } = await room();
    const foreign = await fetch(`${relay.url}/r/${id}?role=guest`, { headers: { upgrade: "websocket", connection: "upgrade", origin: "http://attacker.example" } });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("--allow-origin http://attacker.example");
    await expect(RelayClient.connect(relay.url, id, "guest", { origin: "http://attacker.example" })).rejects.toThrow();
    const own = await RelayClient.connect(relay.url, id, "guest", { origin: relay.url });
    expect((await own.notice((n) => n.t === "host")) as unknown).toEqual({ t: "host", up: false });
    own.close();
    expect((await fetch(`${relay.url}/r/not%20a%20room?role=guest`)).status).toBe(400);
  });

  test("a host's broadcast reaches both guests, a targeted frame only its guest, a guest's frame reaches the host with its peer; join and leave notices", async () => {
    const { id, key } = await room();
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    const one = await RelayClient.connect(relay.url, id, "guest");
    const two = await RelayClient.connect(relay.url, id, "guest");
    const joins = [await host.notice((n) => n.t === "join"), await host.notice((n) => n.t === "join" && n.peer !== (host.notices[0] as { peer: number }).peer)];
    const [peerOne, peerTwo] = joins.map((n) => (n as { peer: number }).peer);
    expect(peerOne).not.toBe(peerTwo);
    expect(one.notices).toContainEqual({ t: "host", up: true });

    host.send(withPeer(0, await seal(key, id, bytes(`welcome: ${PHRASE}`))));
    expect(text(await open(key, id, await one.nextFrame(0)))).toBe(`welcome: ${PHRASE}`);
    expect(text(await open(key, id, await two.nextFrame(0)))).toBe(`welcome: ${PHRASE}`);

    host.send(withPeer(peerTwo!, await seal(key, id, bytes("only for two"))));
    host.send(withPeer(0, await seal(key, id, bytes("for all"))));
    expect(text(await open(key, id, await two.nextFrame(1)))).toBe("only for two");
    expect(text(await open(key, id, await one.nextFrame(1)))).toBe("for all");
    expect(text(await open(key, id, await two.nextFrame(2)))).toBe("for all");

    one.send(await seal(key, id, bytes(`prompt: ${PHRASE}`)));
    const routed = splitPeer(await host.nextFrame(0))!;
    expect(routed.peer).toBe(peerOne!);
    expect(text(await open(key, id, routed.sealed))).toBe(`prompt: ${PHRASE}`);

    two.close();
    expect(await host.notice((n) => n.t === "leave")).toEqual({ t: "leave", peer: peerTwo! });
    host.close();
    one.close();
  });

  test("one host per room; when it goes guests hear so and stay, and a host that comes back is told who is there; its own new connection replaces one that died unseen", async () => {
    const { id, key } = await room();
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    const guest = await RelayClient.connect(relay.url, id, "guest");
    await host.notice((n) => n.t === "join");
    const second = await fetch(`${relay.url}/r/${id}?role=host`, { headers: { ...auth, [HOST_CLAIM_HEADER]: "another-hosts-claim-0123456789", upgrade: "websocket", connection: "upgrade" } });
    expect(second.status).toBe(409);
    expect(await second.text()).toContain("already has a host");

    host.close();
    await guest.notice((n) => n.t === "host" && !n.up);
    const back = await RelayClient.connect(relay.url, id, "host", auth);
    expect(await back.notice((n) => n.t === "join")).toEqual({ t: "join", peer: 1 });
    await waitForNotices(guest, 3);
    expect(guest.notices).toEqual([{ t: "host", up: true }, { t: "host", up: false }, { t: "host", up: true }]);
    back.send(withPeer(0, await seal(key, id, bytes("still here"))));
    expect(text(await open(key, id, await guest.nextFrame(0)))).toBe("still here");
    expect(guest.closed).toBeUndefined();
    // The same host again while the relay still holds its old connection (as after a dropped
    // network): the new one takes over at once and the old one is closed with the reason.
    const again = await RelayClient.connect(relay.url, id, "host", auth);
    expect(await back.whenClosed()).toEqual({ code: 4009, reason: "the host connected again" });
    again.send(withPeer(0, await seal(key, id, bytes("back again"))));
    expect(text(await open(key, id, await guest.nextFrame(1)))).toBe("back again");
    expect(guest.closed).toBeUndefined();
    again.close();
    guest.close();
  });

  test("while its host is away, a guest (who holds the room key) cannot take the host's place: the room keeps its host's claim", async () => {
    const { id, key } = await room();
    const upgradeAs = (headers: Record<string, string>) => fetch(`${relay.url}/r/${id}?role=host`, { headers: { ...auth, ...headers, upgrade: "websocket", connection: "upgrade" } });
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    const guest = await RelayClient.connect(relay.url, id, "guest");
    await host.notice((n) => n.t === "join");
    host.close();
    await guest.notice((n) => n.t === "host" && !n.up);
    const unclaimed = await upgradeAs({});
    expect(unclaimed.status).toBe(400);
    expect(await unclaimed.text()).toContain(HOST_CLAIM_HEADER);
    const impostor = await upgradeAs({ [HOST_CLAIM_HEADER]: "someone-elses-claim-abcdefgh" });
    expect(impostor.status).toBe(403);
    expect(await impostor.text()).toContain("belongs to another host");
    await expect(RelayClient.connect(relay.url, id, "host", { ...auth, [HOST_CLAIM_HEADER]: "someone-elses-claim-abcdefgh" })).rejects.toThrow();
    // The real host comes back with its claim and is heard.
    const back = await RelayClient.connect(relay.url, id, "host", auth);
    back.send(withPeer(0, await seal(key, id, bytes("the real host"))));
    expect(text(await open(key, id, await guest.nextFrame(0)))).toBe("the real host");
    back.close();
    guest.close();
  });

  test("a frame over the limit, a text message and a flood each close the sender with the reason", async () => {
    const { id } = await room();
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    host.send(new Uint8Array(MAX_FRAME_BYTES + 1024));
    const big = await host.whenClosed();
    expect(big.code).toBe(1009);
    expect(big.reason).toContain("over the relay's limit of 4 MB");

    const talker = await RelayClient.connect(relay.url, id, "guest");
    talker.send("hello in text");
    expect((await talker.whenClosed()).code).toBe(1003);

    const flood = await RelayClient.connect(relay.url, id, "guest");
    for (let i = 0; i < 200; i++) flood.send(new Uint8Array(40));
    const closed = await flood.whenClosed();
    expect(closed.code).toBe(4008);
    expect(closed.reason).toContain("messages a second");
  });

  test("a guest that stops reading is cut off once 16 MB wait for it, and the room goes on", async () => {
    const { id, key } = await room();
    const host = await RelayClient.connect(relay.url, id, "host", auth);
    // A guest that completes the handshake and then reads nothing more (TCP backpressure).
    const stalled = rawGuest(Number(new URL(relay.url).port), id);
    await new Promise<void>((resolve) => stalled.once("data", () => resolve()));
    stalled.pause();
    const stalledPeer = ((await host.notice((n) => n.t === "join")) as { peer: number }).peer;
    const reader = await RelayClient.connect(relay.url, id, "guest");
    const frame = withPeer(0, new Uint8Array(MAX_FRAME_BYTES));
    const dropped = () => relay.log().split("\n").find((line) => line.includes('"event":"disconnect"') && line.includes(`"peer":${stalledPeer},`) && line.includes(id.slice(0, 6)));
    for (let sent = 0; sent < 40 && !dropped(); sent++) {
      host.send(frame);
      await reader.nextFrame(sent);
    }
    const line = JSON.parse((await waitUntil(dropped))!) as { code: number; reason: string; bytesOut: number };
    expect(line.code).toBe(4013);
    expect(line.reason).toContain("too slow");
    host.send(withPeer(0, await seal(key, id, bytes("after the drop"))));
    expect(text(await open(key, id, await reader.nextFrame(reader.frames.length)))).toBe("after the drop");
    stalled.destroy();
    host.close();
    reader.close();
  });

  test("the log has a line per connect, disconnect and refusal with sizes, and no plaintext, room id or token", async () => {
    const log = relay.log();
    const lines = log.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((l) => l.event === "connect" && l.role === "guest" && typeof l.peer === "number")).toBe(true);
    expect(lines.some((l) => l.event === "disconnect" && l.role === "host" && (l.bytesIn as number) > 0)).toBe(true);
    expect(lines.some((l) => l.event === "refused" && l.status === 401)).toBe(true);
    expect(lines.some((l) => l.event === "disconnect" && l.code === 1009)).toBe(true);
    expect(log).not.toContain("PURPLE-OTTER");
    expect(log).not.toContain(token);
    for (const line of lines) if (typeof line.room === "string") expect(line.room).toMatch(/^[A-Za-z0-9_-]{6}…$/);
  });
});

describe("omp relay serve limits", () => {
  test("a full room refuses the next guest; guests of a host that does not come back are closed after --host-wait; --allow-origin lets another site's page in", async () => {
    const small = await startRelay(tempDir("omp-relay-"), ["--max-guests", "1", "--host-wait", "1", "--allow-origin", "https://app.example"]);
    const other = await RelayClient.connect(small.url, (await room()).id, "guest", { origin: "https://app.example" });
    other.close();
    expect((await fetch(`${small.url}/healthz`, { headers: { origin: "https://evil.example" } })).status).toBe(403);
    const { id } = await room();
    const guest = await RelayClient.connect(small.url, id, "guest");
    const full = await fetch(`${small.url}/r/${id}?role=guest`, { headers: { upgrade: "websocket", connection: "upgrade" } });
    expect(full.status).toBe(503);
    expect(await full.text()).toContain("limit of 1 guests");
    const closed = await guest.whenClosed();
    expect(closed.code).toBe(4004);
    expect(closed.reason).toContain("did not come back");
    await small.stop();
  });

  test("an address other machines reach needs a token or --no-token", async () => {
    const result = await runOmp(["relay", "serve", "--host", "0.0.0.0", "--port", "0"], { home: tempDir("omp-relay-") });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--token-file");
    expect(result.stderr).toContain("--no-token");
  });
});

async function waitForNotices(client: RelayClient, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (client.notices.length < count && Date.now() < deadline) await Bun.sleep(10);
}
