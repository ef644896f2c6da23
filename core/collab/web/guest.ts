/**
 * The web guest (bundled for the browser at build time by assets.ts, served by the relay at `/`):
 * reads `#<room>.<key>` from the fragment, which no request carries; joins the room on the relay it
 * came from; opens the host's sealed frames with the room key and shows the session; sends hello,
 * prompts and aborts sealed the same way. The DOM is written with textContent only: what the
 * session says is never markup.
 */
import { toBase64Url } from "../base64url.ts";
import { importRoomKey } from "../crypto.ts";
import { openJson, sealJson } from "../sealed-json.ts";
import { type CollabLink, parseLink, socketUrl } from "../link.ts";
import { COLLAB_VERSION, type CollabState, type GuestMessage, HostMessage } from "../messages.ts";
import { parseNotice } from "../relay-frames.ts";
import { Transcript } from "./transcript.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $("status");
const participants = $("participants");
const composer = $<HTMLFormElement>("composer");
const input = $<HTMLTextAreaElement>("prompt");
const send = $<HTMLButtonElement>("send");
const interrupt = $<HTMLButtonElement>("interrupt");
const viewNote = $("view-only");
const nameInput = $<HTMLInputElement>("name");
const transcript = new Transcript($("transcript"));

function say(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle("error", error);
}

let link: CollabLink;
try {
  link = parseLink(`${location.origin}/#${location.hash.slice(1)}`, location.origin);
} catch (error) {
  say(location.hash.length > 1 ? (error as Error).message : "Open the link /collab printed: it ends in #<room>.<key>.", true);
  throw error;
}
if (!crypto.subtle) {
  say("This page decrypts the session with WebCrypto, which browsers offer only over https (or on localhost): open the https:// link.", true);
  throw new Error("no WebCrypto: not a secure context");
}
const key = await importRoomKey(link.key);
let socket: WebSocket | undefined;
let canWrite = false;
let streaming = false;
let ended = false;
let retryMs = 500;

function setComposer(): void {
  // A view-only link never gets the form; a full one waits for the host to confirm the token.
  composer.hidden = !link.writeToken;
  viewNote.hidden = Boolean(link.writeToken) && canWrite;
  if (!link.writeToken) viewNote.textContent = "View-only link: you can watch this session but not prompt it.";
  else if (!canWrite) viewNote.textContent = "Waiting for the host to let this link prompt…";
  const live = socket?.readyState === WebSocket.OPEN && canWrite && !ended;
  input.disabled = send.disabled = !live;
  interrupt.disabled = !live || !streaming;
}

async function post(message: GuestMessage): Promise<void> {
  if (socket?.readyState !== WebSocket.OPEN) return;
  socket.send((await sealJson(key, link.roomId, message)) as Uint8Array<ArrayBuffer>);
}

/** The name the participants see, kept in this browser for the next session. */
const NAME_KEY = "omp-collab-name";
const DEFAULT_NAME = "web guest";
nameInput.value = localStorage.getItem(NAME_KEY) || DEFAULT_NAME;

function hello(): Promise<void> {
  const name = nameInput.value.trim().slice(0, 64) || DEFAULT_NAME;
  return post({ type: "hello", version: COLLAB_VERSION, name, client: "web", ...(link.writeToken ? { writeToken: toBase64Url(link.writeToken) } : {}) });
}

function showState(state: CollabState): void {
  streaming = state.streaming;
  participants.textContent = `${state.model.provider}/${state.model.id} · ${state.participants.map((p) => `${p.name}${p.canWrite ? "" : " (view)"}`).join(", ")}`;
  setComposer();
}

function receive(message: HostMessage): void {
  switch (message.type) {
    case "welcome":
      canWrite = message.canWrite;
      transcript.reset(message.messages);
      showState(message.state);
      say(`Connected to session ${message.sessionId.slice(0, 8)}`);
      break;
    case "event":
      if (message.event.type === "agent_start" || message.event.type === "agent_end") {
        streaming = message.event.type === "agent_start";
        setComposer();
      }
      transcript.event(message.event);
      break;
    case "state":
      showState(message.state);
      break;
    case "notice":
      transcript.notice(message.text);
      break;
    case "bye":
      ended = true;
      say(message.reason === "revoked" ? "The host revoked this link." : "The host stopped sharing.", true);
      socket?.close();
      setComposer();
      break;
  }
}

function connect(): void {
  const ws = new WebSocket(socketUrl(link, "guest"));
  socket = ws;
  ws.binaryType = "arraybuffer";
  say("Connecting…");
  ws.onopen = () => {
    retryMs = 500;
    setComposer();
  };
  ws.onmessage = async (event) => {
    if (typeof event.data === "string") {
      const notice = parseNotice(event.data);
      if (notice?.t !== "host") return;
      if (notice.up) await hello();
      else say("The host is away; waiting for it to come back…");
      return;
    }
    const message = await openJson(key, link.roomId, new Uint8Array(event.data as ArrayBuffer), HostMessage);
    if (!message) {
      transcript.notice("A frame from the host could not be read (another room's key, or changed on the way); it was left out.");
      return;
    }
    receive(message);
  };
  ws.onclose = (event) => {
    setComposer();
    if (ended || socket !== ws) return;
    say(`Disconnected${event.reason ? `: ${event.reason}` : ""}; reconnecting…`, true);
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 10_000);
  };
}

composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || input.disabled) return;
  void post({ type: "prompt", text });
  input.value = "";
});
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    composer.requestSubmit();
  }
});
interrupt.addEventListener("click", () => void post({ type: "abort" }));
// Said to the host at once: a hello again, which the host takes as the new name.
nameInput.addEventListener("change", () => {
  localStorage.setItem(NAME_KEY, nameInput.value.trim() || DEFAULT_NAME);
  void hello();
});
addEventListener("hashchange", () => location.reload());

setComposer();
connect();
