import { type BindAddress, bindUrl, boundAddress } from "../http/bind.ts";
import { formatBytes } from "../http/body-limit.ts";
import { presentedToken, tokenMatches } from "../http/bearer.ts";
import { guardRequest } from "../http/request-guard.ts";
import { VERSION } from "../version.ts";
import { isRoomId } from "./link.ts";
import { HOST_CLAIM_HEADER, MAX_FRAME_BYTES, PEER_BYTES } from "./relay-frames.ts";
import { CLOSE, DEFAULT_LIMITS, RateBucket, type RelayLimits } from "./relay-limits.ts";
import { webGuestFile } from "./web-guest.ts";
import { type Connection, type RelaySocket, Room } from "./relay-room.ts";

/**
 * The collab relay (omp-docs/collab.md): rooms of one host and its guests over WebSockets at
 * `/r/<roomId>?role=host|guest`, sealed frames forwarded unopened (relay-frames.ts), the web guest
 * at `/`, liveness at `/healthz`. It keeps nothing but live connections, and its log has room-id
 * prefixes, roles, peers and sizes — never a payload byte.
 */
export interface RelayOptions {
  bind: BindAddress;
  /** The bearer a host presents (`Authorization: Bearer`); undefined lets any host open a room. */
  token?: string;
  allowOrigins?: string[];
  allowHosts?: string[];
  limits?: Partial<RelayLimits>;
  log?: (line: string) => void;
}

export interface Relay {
  url: string;
  address: string;
  port: number;
  stop(): Promise<void>;
}

/** Enough of a room id to tell rooms apart in the log without handing out the address of one. */
function roomLabel(roomId: string): string {
  return `${roomId.slice(0, 6)}…`;
}

export function startRelay(options: RelayOptions): Relay {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const rooms = new Map<string, Room>();
  const guard = { allowHosts: options.allowHosts, boundHost: options.bind.hostname };

  const record = (event: string, fields: Record<string, unknown>) => log(JSON.stringify({ time: new Date().toISOString(), event, ...fields }));

  function refuse(status: number, message: string, fields: Record<string, unknown> = {}): Response {
    record("refused", { status, ...fields, why: message });
    return new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
  }

  function deliver(socket: RelaySocket, data: Uint8Array | string): void {
    // A socket already closing is on its way out: nothing to send, and it is not slow.
    if (socket.readyState !== WebSocket.OPEN) return;
    const sent = socket.send(data);
    if (sent > 0) {
      socket.data.framesOut++;
      socket.data.bytesOut += typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    }
    // 0 is a message Bun dropped; past the limit the reader would fall further behind each frame.
    const waiting = socket.getBufferedAmount();
    if (sent === 0 || waiting > limits.maxBufferedBytes) {
      // A close frame would queue behind what the reader is not reading: cut it off at once.
      socket.data.dropped = `too slow: ${formatBytes(waiting)} waiting, over the limit of ${formatBytes(limits.maxBufferedBytes)}`;
      socket.terminate();
    }
  }

  /**
   * A browser page may call from the relay's own origin (the web guest it serves) or an allowed one.
   * Host is checked before Origin, so a rebound name never makes its own origin "own".
   */
  function guarded(request: Request) {
    const host = request.headers.get("host");
    const own = host === null ? [] : [`http://${host}`, `https://${host}`];
    return guardRequest(request.headers, { ...guard, allowOrigins: [...own, ...(options.allowOrigins ?? [])] });
  }

  /** What the relay keeps of a host's claim (relay-frames.ts): its digest, or undefined for a missing or malformed one. */
  function claimDigest(claim: string | null): string | undefined {
    if (claim === null || !/^[A-Za-z0-9_-]{22,128}$/.test(claim)) return undefined;
    return new Bun.CryptoHasher("sha256").update(claim).digest("hex");
  }

  function upgrade(request: Request, server: Bun.Server<Connection>, roomId: string): Response | undefined {
    const role = new URL(request.url).searchParams.get("role");
    if (role !== "host" && role !== "guest") return refuse(400, "say ?role=host or ?role=guest", { room: roomLabel(roomId) });
    const fields = { room: roomLabel(roomId), role };
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return refuse(426, "this address is a WebSocket; connect with ws:// or wss://", fields);
    if (role === "host" && options.token !== undefined && !tokenMatches(presentedToken(request.headers), options.token)) {
      return refuse(401, "this relay wants its token from hosts: send it as `Authorization: Bearer <token>` (ask whoever runs the relay)", fields);
    }
    const claim = role === "host" ? claimDigest(request.headers.get(HOST_CLAIM_HEADER)) : undefined;
    if (role === "host" && claim === undefined) return refuse(400, `a host presents its room claim (${HOST_CLAIM_HEADER}: 22-128 base64url characters); omp sends one, update the client`, fields);
    let room = rooms.get(roomId);
    if (!room && rooms.size >= limits.maxRooms) return refuse(503, `the relay has its limit of ${limits.maxRooms} rooms open; try again later`, fields);
    if (role === "host" && room?.claim !== undefined && room.claim !== claim) {
      return room.host ? refuse(409, "this room already has a host; stop the other /collab first, or start a new room", fields) : refuse(403, "this room belongs to another host (its claim differs); start a new room with /collab", fields);
    }
    if (role === "guest" && room && room.guests.size >= limits.maxGuests) return refuse(503, `this room has its limit of ${limits.maxGuests} guests`, fields);
    if (!room) rooms.set(roomId, (room = new Room(roomId, deliver)));
    if (claim !== undefined) room.claim ??= claim;
    const data: Connection = {
      roomId,
      role,
      peer: role === "host" ? 0 : room.peerFor(),
      bucket: new RateBucket(role === "host" ? limits.hostRate : limits.guestRate),
      opened: performance.now(),
      framesIn: 0,
      bytesIn: 0,
      framesOut: 0,
      bytesOut: 0,
    };
    if (server.upgrade(request, { data })) return undefined;
    if (room.empty()) rooms.delete(roomId);
    return refuse(400, "the WebSocket handshake failed", fields);
  }

  const server = Bun.serve<Connection>({
    hostname: options.bind.hostname,
    port: options.bind.port,
    fetch(request, server) {
      const refused = guarded(request);
      if (refused) return refuse(refused.status, refused.message);
      const path = new URL(request.url).pathname;
      if (path === "/healthz" && request.method === "GET") return Response.json({ status: "ok", version: VERSION, rooms: rooms.size });
      const socket = /^\/r\/([^/]+)$/.exec(path);
      if (socket && request.method === "GET") {
        if (!isRoomId(socket[1]!)) return refuse(400, "a room id is 8-64 characters of A-Z a-z 0-9 _ -; copy the whole link again");
        return upgrade(request, server, socket[1]!);
      }
      const page = request.method === "GET" ? webGuestFile(path) : undefined;
      if (page) return page;
      return new Response(`no endpoint ${request.method} ${path}\n`, { status: 404 });
    },
    websocket: {
      // Bun closes past this itself; up to it the relay refuses with its own reason.
      maxPayloadLength: 2 * (MAX_FRAME_BYTES + PEER_BYTES),
      idleTimeout: limits.idleSeconds,
      sendPings: true,
      backpressureLimit: limits.maxBufferedBytes,
      open(socket) {
        const room = rooms.get(socket.data.roomId)!;
        if (socket.data.role === "host") {
          // The same host again (its claim matched): its old connection died without the relay
          // noticing, so the new one takes over rather than wait for the idle timeout.
          const stale = room.host;
          room.addHost(socket);
          stale?.close(CLOSE.replaced, "the host connected again");
        } else room.addGuest(socket, limits.hostWaitMs);
        record("connect", { room: roomLabel(socket.data.roomId), role: socket.data.role, peer: socket.data.peer, guests: room.guests.size, host: room.host !== undefined });
      },
      message(socket, message) {
        const data = socket.data;
        if (typeof message === "string") {
          socket.close(CLOSE.textRefused, "the relay forwards binary frames only");
          return;
        }
        const limit = MAX_FRAME_BYTES + (data.role === "host" ? PEER_BYTES : 0);
        if (message.byteLength > limit) {
          socket.close(CLOSE.tooBig, `a frame of ${formatBytes(message.byteLength)} is over the relay's limit of ${formatBytes(limit)}`);
          return;
        }
        if (!data.bucket.take()) {
          socket.close(CLOSE.tooFast, `more than ${data.role === "host" ? limits.hostRate : limits.guestRate} messages a second; slow down and reconnect`);
          return;
        }
        data.framesIn++;
        data.bytesIn += message.byteLength;
        const room = rooms.get(data.roomId);
        if (room?.forward(socket, message) === "bad-prefix") socket.close(CLOSE.badFrame, `a host's frame starts with the ${PEER_BYTES}-byte peer it goes to`);
      },
      close(socket, code, reason) {
        const data = socket.data;
        const room = rooms.get(data.roomId);
        room?.remove(socket, limits.hostWaitMs);
        if (room?.empty()) rooms.delete(data.roomId);
        record("disconnect", {
          room: roomLabel(data.roomId),
          role: data.role,
          peer: data.peer,
          code: data.dropped ? CLOSE.tooSlow : code,
          reason: data.dropped ?? (reason || undefined),
          seconds: Math.round((performance.now() - data.opened) / 100) / 10,
          framesIn: data.framesIn,
          bytesIn: data.bytesIn,
          framesOut: data.framesOut,
          bytesOut: data.bytesOut,
        });
      },
    },
  });

  const port = server.port!;
  return {
    url: bindUrl({ hostname: options.bind.hostname, port }),
    address: boundAddress({ hostname: options.bind.hostname, port }),
    port,
    async stop() {
      for (const room of rooms.values()) room.closeAll(CLOSE.goingAway, "the relay is stopping");
      await server.stop(true);
    },
  };
}
