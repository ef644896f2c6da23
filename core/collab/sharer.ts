import type { HostEvent, SessionHost } from "../session-host/host.ts";
import { isAgentEvent } from "../session-host/host.ts";
import { fromBase64Url } from "./base64url.ts";
import { importRoomKey, sameBytes } from "./crypto.ts";
import { type CollabLink, socketUrl } from "./link.ts";
import { COLLAB_VERSION, type CollabState, GuestMessage, type HostMessage, type Participant } from "./messages.ts";
import { BROADCAST, newHostClaim, parseNotice, splitPeer, withPeer } from "./relay-frames.ts";
import { RelayConnection } from "./relay-connection.ts";
import { openJson, sealJson } from "./sealed-json.ts";
import { trimStrings } from "./trim.ts";

/** A guest's welcome carries at most this many of the last messages, each string cut to MESSAGE_CHARS, all together under WELCOME_BYTES. */
const WELCOME_MESSAGES = 200;
const MESSAGE_CHARS = 8 * 1024;
const WELCOME_BYTES = 2 * 1024 * 1024;
/** An event larger than this has its long strings cut (a whole file read, an image). */
const EVENT_BYTES = 64 * 1024;
const EVENT_CHARS = 16 * 1024;
const STATE_DEBOUNCE_MS = 200;
/** Guests the host keeps; more are told the room is full. */
const MAX_GUESTS = 64;
/** A guest's hello is answered at most this often: each welcome carries up to WELCOME_BYTES. */
const WELCOME_EVERY_MS = 2000;

/** What the sharer tells the front end: a line for the transcript (a guest joined, the relay went away). */
export type SharerNotice = { kind: "info" | "warning"; text: string };

export interface SharerOptions {
  host: SessionHost;
  /** The full link of the room (with its write token). */
  link: CollabLink;
  /** Whose session it is, as guests see it. */
  name: string;
  /** The relay's token for hosts (collab.relayToken, OMP_RELAY_TOKEN). */
  relayToken?: string;
  notify(notice: SharerNotice): void;
  /** The relay connection or the guests changed (a status line shows them). */
  changed(): void;
}

/**
 * The host's side of a collab room: the session host's events go sealed to every guest through
 * the relay; each guest's hello is answered with the conversation so far and what the guest may
 * do; a full-link guest's prompt and abort become host operations, like the host user's own
 * (the approvals they cause stay with the host user). The relay going away leaves the session
 * alone: the socket comes back and guests catch up with a new welcome.
 */
export class CollabSharer {
  private readonly socket: RelayConnection;
  private key: CryptoKey | undefined;
  private readonly guests = new Map<number, Participant>();
  private readonly welcomedAt = new Map<number, number>();
  private unsubscribe: () => void = () => {};
  private stateTimer: ReturnType<typeof setTimeout> | undefined;
  /** Frames are sealed asynchronously; this keeps them in the order they were made. */
  private sending: Promise<void> = Promise.resolve();
  private relayDown = false;
  /** Whether the relay ever let this host in: if not, a token may be what it wants. */
  private admitted = false;
  /** Guests' frames open asynchronously; this keeps each guest's in the order they came. */
  private receiving: Promise<void> = Promise.resolve();

  constructor(private readonly options: SharerOptions) {
    this.socket = new RelayConnection(socketUrl(options.link, "host"), {
      open: () => {
        this.admitted = true;
        options.changed();
        if (this.relayDown) options.notify({ kind: "info", text: "Collab: reconnected to the relay; guests rejoin by themselves." });
        this.relayDown = false;
      },
      binary: (frame) => {
        // One frame that fails must not stop the ones after it.
        this.receiving = this.receiving.then(() => this.fromGuest(frame)).catch(() => undefined);
      },
      text: (text) => this.relayNotice(text),
      down: (reason) => {
        // Guests come back through their own sockets (with new peer numbers) and say hello again.
        this.guests.clear();
        this.welcomedAt.clear();
        const hint = this.admitted ? "" : options.relayToken ? " (or it refused this host's token)" : " (or it asks hosts for a token: set OMP_RELAY_TOKEN or collab.relayToken)";
        if (!this.relayDown) options.notify({ kind: "warning", text: `Collab: ${reason}${hint}; the session goes on here, retrying in the background.` });
        this.relayDown = true;
        options.changed();
      },
    }, { token: options.relayToken, claim: newHostClaim() });
  }

  get link(): CollabLink {
    return this.options.link;
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get participants(): Participant[] {
    return [...this.guests.values()];
  }

  async start(): Promise<void> {
    this.key = await importRoomKey(this.options.link.key);
    this.unsubscribe = this.options.host.subscribe((event) => this.onHostEvent(event));
    this.socket.start();
  }

  /** Guests are told why (`bye`), then the room is left: its links stop working. */
  async stop(reason: "stopped" | "revoked"): Promise<void> {
    this.unsubscribe();
    clearTimeout(this.stateTimer);
    this.send(BROADCAST, { type: "bye", reason });
    await this.sending;
    this.socket.close();
    this.guests.clear();
  }

  private onHostEvent(event: HostEvent): void {
    // The agent's events, and each tool call as the host presents it (the web guest's card titles); approvals and questions stay the host user's.
    if (this.guests.size > 0 && (isAgentEvent(event) || event.type === "tool_call")) {
      const bytes = JSON.stringify(event).length;
      this.send(BROADCAST, { type: "event", event: bytes > EVENT_BYTES ? trimStrings(event, EVENT_CHARS) : event });
    }
    // Guests see the run stop at an approval; the question and its answer stay the host user's.
    if (event.type === "approval_request") this.send(BROADCAST, { type: "notice", text: `Waiting for the host to approve ${event.toolName}.` });
    // Another conversation (the host's /new, /resume, a branch): guests start over with it.
    if (event.type === "session_changed") for (const guest of this.guests.values()) this.sendWelcome(guest);
    if (event.type === "agent_start" || event.type === "agent_end" || event.type === "usage" || event.type === "model_changed" || event.type === "session_changed") this.stateChanged();
  }

  private stateChanged(): void {
    this.options.changed();
    if (this.stateTimer) return;
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.send(BROADCAST, { type: "state", state: this.state() });
    }, STATE_DEBOUNCE_MS);
  }

  private state(): CollabState {
    const { view: session, runtime } = this.options.host;
    return {
      model: { provider: session.model.provider, id: session.model.id, thinking: session.thinking },
      cwd: runtime.options.cwd,
      streaming: this.options.host.isRunning,
      contextTokens: session.contextTokens(),
      contextWindow: session.model.contextWindow,
      cost: session.usage.cost.total,
      // The host first, as peer 0 (the relay's broadcast address: no guest has it).
      participants: [{ peer: BROADCAST, name: `${this.options.name} (host)`.slice(0, 64), canWrite: true, client: "omp" }, ...this.participants],
    };
  }

  /** The conversation so far, bounded (see WELCOME_*): the last messages that fit. */
  private history(): unknown[] {
    const messages = this.options.host.view.messages.slice(-WELCOME_MESSAGES).map((message) => trimStrings(message, MESSAGE_CHARS));
    let bytes = 0;
    let first = messages.length;
    while (first > 0) {
      bytes += JSON.stringify(messages[first - 1]).length;
      if (bytes > WELCOME_BYTES) break;
      first--;
    }
    return messages.slice(first);
  }

  private send(peer: number, message: HostMessage): void {
    const key = this.key;
    // Nobody to see it: nothing is sealed (the relay coming back brings guests a welcome).
    if (!key || (peer === BROADCAST && this.guests.size === 0 && message.type !== "bye")) return;
    const { roomId } = this.options.link;
    this.sending = this.sending
      .then(async () => {
        this.socket.send(withPeer(peer, await sealJson(key, roomId, message)));
      })
      .catch(() => undefined);
  }

  private relayNotice(text: string): void {
    const notice = parseNotice(text);
    if (notice?.t !== "leave") return;
    const guest = this.guests.get(notice.peer);
    if (!guest) return;
    this.guests.delete(notice.peer);
    this.welcomedAt.delete(notice.peer);
    this.options.notify({ kind: "info", text: `Collab: ${guest.name} left.` });
    this.stateChanged();
  }

  private async fromGuest(frame: Uint8Array): Promise<void> {
    const split = splitPeer(frame);
    if (!split || !this.key || split.peer === BROADCAST) return;
    const message = await openJson(this.key, this.options.link.roomId, split.sealed, GuestMessage);
    if (!message) return;
    const { peer } = split;
    const guest = this.guests.get(peer);
    switch (message.type) {
      case "hello":
        return this.welcome(peer, message);
      case "prompt":
        if (!guest) return;
        if (!guest.canWrite) return this.send(peer, { type: "notice", text: "This link is view-only (no valid write token): the host does not take prompts from it." });
        // Commands and skills run the host's own files and settings: the host's alone, as in the original.
        if (message.text.trimStart().startsWith("/")) return this.send(peer, { type: "notice", text: "Slash commands and skills are the host's: a guest sends the agent messages." });
        this.options.notify({ kind: "info", text: `Collab: ${guest.name} prompted.` });
        // A message of the session like the host user's: it starts a run, or steers the one going.
        this.options.host.submit({ type: "steer", content: [{ type: "text", text: message.text }] }).catch((error: unknown) => {
          this.send(peer, { type: "notice", text: `The host could not run that prompt: ${error instanceof Error ? error.message : String(error)}` });
        });
        return;
      case "abort":
        if (!guest) return;
        if (!guest.canWrite) return this.send(peer, { type: "notice", text: "This link is view-only (no valid write token): the host does not take interrupts from it." });
        this.options.notify({ kind: "info", text: `Collab: ${guest.name} interrupted the agent.` });
        void this.options.host.submit({ type: "abort" }).catch(() => undefined);
        return;
    }
  }

  private sendWelcome({ peer, canWrite }: Participant): void {
    this.welcomedAt.set(peer, Date.now());
    const sessionId = this.options.host.view.writer?.header.id ?? "none";
    this.send(peer, { type: "welcome", version: COLLAB_VERSION, peer, canWrite, sessionId, messages: this.history(), state: this.state() });
  }

  private welcome(peer: number, hello: Extract<GuestMessage, { type: "hello" }>): void {
    if (hello.version !== COLLAB_VERSION) return this.send(peer, { type: "notice", text: `This host speaks collab version ${COLLAB_VERSION}, the guest ${hello.version}: update omp on one side.` });
    if (!this.guests.has(peer) && this.guests.size >= MAX_GUESTS) return this.send(peer, { type: "notice", text: `The room is full (${MAX_GUESTS} guests).` });
    const writeToken = this.options.link.writeToken;
    let token: Uint8Array | undefined;
    try {
      token = hello.writeToken ? fromBase64Url(hello.writeToken) : undefined;
    } catch {
      token = undefined;
    }
    const canWrite = Boolean(writeToken && token && sameBytes(token, writeToken));
    const known = this.guests.get(peer);
    // A name is the guest's own text, shown in other terminals: no control characters, never empty.
    const name = hello.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim() || "guest";
    const guest: Participant = { peer, name, canWrite, client: hello.client };
    this.guests.set(peer, guest);
    // A hello again soon after (the web guest saying its new name) changes the participant; the conversation is not sent again.
    if (Date.now() - (this.welcomedAt.get(peer) ?? 0) >= WELCOME_EVERY_MS) this.sendWelcome(guest);
    if (known && known.name !== guest.name) this.options.notify({ kind: "info", text: `Collab: ${known.name} is now ${guest.name}.` });
    if (!known) {
      const text = `${name} joined${canWrite ? "" : " (view-only)"}.`;
      this.options.notify({ kind: "info", text: `Collab: ${text}` });
      for (const other of this.guests.keys()) if (other !== peer) this.send(other, { type: "notice", text });
    }
    this.stateChanged();
  }
}
