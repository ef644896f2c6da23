import { toBase64Url } from "./base64url.ts";
import { importRoomKey } from "./crypto.ts";
import { type CollabLink, socketUrl } from "./link.ts";
import { COLLAB_VERSION, type CollabState, type GuestMessage, HostMessage } from "./messages.ts";
import { parseNotice } from "./relay-frames.ts";
import { RelayConnection } from "./relay-connection.ts";
import { openJson, sealJson } from "./sealed-json.ts";

export type Welcome = Extract<HostMessage, { type: "welcome" }>;

/** What a guest's front end shows. */
export interface GuestHandlers {
  /** The host answered hello: the conversation so far and what this guest may do. `again`: after a reconnect. */
  welcome(welcome: Welcome, again: boolean): void;
  /** A live event of the host's session (an AgentEvent). */
  event(event: { type: string }): void;
  state(state: CollabState): void;
  /** A line to show: the host's notices and the connection's ups and downs. */
  notice(kind: "info" | "warning", text: string): void;
  /** The room is over (the host stopped or revoked it): nothing comes any more. */
  ended(reason: "stopped" | "revoked"): void;
}

export class CollabGuestError extends Error {
  readonly kind = "collab_guest";
}

/**
 * A guest of a collab room: connects to the relay, says hello (with the write token of a full
 * link), and passes on what the host sends. Reconnects when the relay goes away and says hello
 * again when the host is back.
 */
export class CollabGuest {
  private readonly socket: RelayConnection;
  private key: CryptoKey | undefined;
  private welcomed = false;
  private down = false;
  private ended = false;
  private grantedWrite = false;
  /** A hello is on its way and not answered yet: the relay's "host up" need not send another. */
  private helloPending = false;
  /** The host answered since the connection (or the host) last went away: what is sent now reaches it. */
  private hostHere = false;
  /** Frames open asynchronously; this keeps them in the order they came. */
  private receiving: Promise<void> = Promise.resolve();

  constructor(
    readonly link: CollabLink,
    private readonly name: string,
    private readonly handlers: GuestHandlers,
  ) {
    this.socket = new RelayConnection(socketUrl(link, "guest"), {
      open: () => {
        if (this.down) handlers.notice("info", "Reconnected to the relay.");
        this.down = false;
        this.helloPending = false;
        void this.hello();
      },
      binary: (frame) => {
        // One frame that fails (a handler's error) must not stop the ones after it.
        this.receiving = this.receiving.then(() => this.fromHost(frame)).catch(() => undefined);
      },
      text: (text) => {
        const notice = parseNotice(text);
        if (notice?.t !== "host") return;
        if (notice.up) {
          if (!this.helloPending) void this.hello();
        } else {
          this.helloPending = false;
          this.hostHere = false;
          if (this.welcomed) handlers.notice("warning", "The host is away; waiting for it to come back.");
        }
      },
      down: (reason) => {
        this.hostHere = false;
        if (!this.down) handlers.notice("warning", `${reason}; reconnecting…`);
        this.down = true;
      },
    });
  }

  /** Whether the host granted prompting (a full link); false until welcomed. */
  get canWrite(): boolean {
    return this.grantedWrite;
  }

  get isViewOnly(): boolean {
    return !this.link.writeToken;
  }

  async start(): Promise<void> {
    this.key = await importRoomKey(this.link.key);
    this.socket.start();
  }

  /** A prompt for the host's agent; refused here already for a view-only link. */
  async prompt(text: string): Promise<void> {
    if (this.isViewOnly) throw new CollabGuestError("This is a view-only link: you can watch, not prompt. Ask the host for the full link (/collab prints it).");
    if (!this.hostHere || !(await this.send({ type: "prompt", text }))) throw new CollabGuestError("The host is not connected right now; send it again once it is back.");
  }

  async abort(): Promise<void> {
    if (this.isViewOnly) throw new CollabGuestError("This is a view-only link: only the host and full-link guests can interrupt.");
    await this.send({ type: "abort" });
  }

  close(): void {
    this.ended = true;
    this.socket.close();
  }

  private hello(): Promise<boolean> {
    this.helloPending = true;
    const token = this.link.writeToken;
    return this.send({ type: "hello", version: COLLAB_VERSION, name: this.name, client: "omp", ...(token ? { writeToken: toBase64Url(token) } : {}) });
  }

  private async send(message: GuestMessage): Promise<boolean> {
    if (!this.key) return false;
    return this.socket.send(await sealJson(this.key, this.link.roomId, message));
  }

  private async fromHost(frame: Uint8Array): Promise<void> {
    if (!this.key || this.ended) return;
    const message = await openJson(this.key, this.link.roomId, frame, HostMessage);
    if (!message) return;
    switch (message.type) {
      case "welcome":
        this.helloPending = false;
        this.hostHere = true;
        this.grantedWrite = message.canWrite;
        this.handlers.welcome(message, this.welcomed);
        this.welcomed = true;
        return;
      case "event":
        if (this.welcomed) this.handlers.event(message.event);
        return;
      case "state":
        this.handlers.state(message.state);
        return;
      case "notice":
        this.handlers.notice("info", message.text);
        return;
      case "bye":
        this.close();
        this.handlers.ended(message.reason);
        return;
    }
  }
}
