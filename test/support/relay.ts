// `omp relay serve` for e2e tests and the bench: a relay on a free loopback port, and raw WebSocket
// clients that play hosts and guests with the collab base modules (core/collab/*), so a test sees
// exactly the frames and notices the relay sends.
import { afterAll } from "bun:test";
import type { Subprocess } from "bun";
import { OMP, cleanEnv } from "./omp.ts";
import { type RelayNotice, parseNotice } from "../../core/collab/relay-frames.ts";

export interface RelayProcess {
  child: Subprocess<"ignore", "pipe", "pipe">;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Everything it wrote to stderr so far: the banner and its log. */
  log(): string;
  stop(): Promise<number>;
}

const running: RelayProcess[] = [];
afterAll(() => {
  for (const relay of running.splice(0)) relay.child.kill(9);
});

/** Resolves once the relay says where it listens; rejects with its output if it exits first. */
export async function startRelay(home: string, args: string[] = []): Promise<RelayProcess> {
  const child = Bun.spawn([OMP, "relay", "serve", "--port", "0", ...args], { cwd: home, env: cleanEnv(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let text = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of child.stderr) text += decoder.decode(chunk, { stream: true });
  })();
  const url = await waitUntil(() => /listening on (http:\/\/\S+)/.exec(text)?.[1], () => (child.exitCode !== null ? `the relay exited (${child.exitCode}):\n${text}` : undefined), 20_000);
  const relay: RelayProcess = {
    child,
    url,
    log: () => text,
    async stop() {
      child.kill("SIGTERM");
      const code = await child.exited;
      await pump;
      return code;
    },
  };
  running.push(relay);
  return relay;
}

/** Polls `get` until it gives a value; `failed` says why to give up early. */
export async function waitUntil<T>(get: () => T | undefined, failed: () => string | undefined = () => undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = get();
    if (value !== undefined && value !== false) return value;
    const why = failed();
    if (why) throw new Error(why);
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms`);
    await Bun.sleep(10);
  }
}

/** A WebSocket to the relay that keeps what arrives: binary frames and the relay's notices apart. */
export class RelayClient {
  readonly frames: Uint8Array[] = [];
  readonly notices: RelayNotice[] = [];
  closed: { code: number; reason: string } | undefined;
  private constructor(readonly socket: WebSocket) {
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") {
        const notice = parseNotice(event.data);
        if (notice) this.notices.push(notice);
      } else this.frames.push(new Uint8Array(event.data as ArrayBuffer));
    });
    socket.addEventListener("close", (event) => (this.closed = { code: event.code, reason: event.reason }));
  }

  /** Opens `/r/<room>?role=…`; rejects when the relay refuses the upgrade. */
  static async connect(relayUrl: string, roomId: string, role: "host" | "guest", headers: Record<string, string> = {}): Promise<RelayClient> {
    const socket = new WebSocket(`${relayUrl.replace(/^http/, "ws")}/r/${roomId}?role=${role}`, { headers });
    const client = new RelayClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve());
      socket.addEventListener("error", () => reject(new Error(`the relay refused the ${role}`)));
      socket.addEventListener("close", () => reject(new Error(`the relay closed the ${role}`)));
    });
    return client;
  }

  send(data: Uint8Array | string): void {
    this.socket.send(data);
  }

  async nextFrame(index: number): Promise<Uint8Array> {
    return waitUntil(() => this.frames[index], () => (this.closed ? `closed (${this.closed.code} ${this.closed.reason}) before frame ${index}` : undefined));
  }

  async notice(match: (notice: RelayNotice) => boolean): Promise<RelayNotice> {
    return waitUntil(() => this.notices.find(match), () => (this.closed ? `closed (${this.closed.code} ${this.closed.reason}) without the notice` : undefined));
  }

  async whenClosed(): Promise<{ code: number; reason: string }> {
    return waitUntil(() => this.closed);
  }

  close(): void {
    this.socket.close();
  }
}
