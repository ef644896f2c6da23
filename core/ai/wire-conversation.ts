import { type Wired, keptWire, wired } from "./http/wire-json.ts";
import type { ImageContent, Message } from "./messages.ts";
import type { Model } from "./model.ts";
import { TranscriptFold, failedCalls } from "./transcript.ts";

/**
 * How a wire API lays out a transcript, for {@link WireConversation}: each prepared message as an
 * element (its wire form, kept with the message), a tool result joining the run of results before
 * it where the API sends such a run together.
 */
export interface WireLayout<E> {
  /** The message's element, made once per message (keptWire). */
  element(model: Model, m: Message): E;
  /** Adds `next` to `run` (a copy this conversation owns) when the API sends them together; false to start a new element. */
  join(run: E, next: E): boolean;
  /** A copy whose lists can grow without touching the kept element. */
  copy(e: E): E;
  /** The element's JSON text: its wire items joined by commas, "" for none. */
  json(e: E): string;
  values(e: E): unknown[];
}

/** What a request sends of a conversation: the closed elements' text and values, then the open ones. */
export interface WireParts<E> {
  /** The wire items of every closed element, as JSON text joined by commas, and as values. */
  closed: string;
  closedValues: unknown[];
  /** The last element and those made for calls still unanswered: copies, free to be marked. */
  open: E[];
  /** Every element, copies, for a request whose marks fall further back than `open`. */
  all(): E[];
}

/**
 * A conversation (an agent's message list, which only grows between requests) on one API's wire
 * for one model: the transcript is folded a message at a time, and an element's JSON text joins
 * the closed text once a later element follows, so a request converts and serialises only what is
 * new. A list that no longer starts with the messages folded (a compaction, a rewind, thinking
 * dropped), or a failed turn naming a call already answered, is folded again from its start.
 */
export class WireConversation<E> {
  private fold: TranscriptFold | undefined;
  private sources: Message[] = [];
  private elements: E[] = [];
  private closed = "";
  private closedValues: unknown[] = [];

  constructor(
    readonly model: Model,
    private readonly layout: WireLayout<E>,
  ) {}

  /** The conversation of `messages` for `model` on `api`'s wire, kept with the list (one model at a time). */
  static of<E>(api: string, model: Model, messages: Message[], layout: WireLayout<E>): WireParts<E> {
    const kept = keptWire(messages, api, () => ({ conversation: new WireConversation(model, layout) }));
    const { provider, api: wire, id, baseUrl } = kept.conversation.model;
    if (provider !== model.provider || wire !== model.api || id !== model.id || baseUrl !== model.baseUrl) kept.conversation = new WireConversation(model, layout);
    return kept.conversation.request(messages);
  }

  request(messages: Message[]): WireParts<E> {
    let carriesOn = this.fold !== undefined && messages.length >= this.sources.length;
    for (let i = 0; carriesOn && i < this.sources.length; i++) carriesOn = messages[i] === this.sources[i];
    let fold = carriesOn ? this.fold! : this.restart(messages);
    for (let i = carriesOn ? this.sources.length : 0; i < messages.length; i++) {
      if (fold.add(messages[i]!)) continue;
      fold = this.restart(messages);
      for (const m of messages) fold.add(m);
      break;
    }
    this.sources = messages.slice();
    const { layout } = this;
    const open: E[] = this.elements.length > 0 ? [layout.copy(this.elements[this.elements.length - 1]!)] : [];
    for (const missing of fold.unanswered()) this.place(open, missing);
    return { closed: this.closed, closedValues: this.closedValues, open, all: () => [...this.elements.slice(0, -1).map((e) => layout.copy(e)), ...open] };
  }

  private restart(messages: Message[]): TranscriptFold {
    this.elements = [];
    this.closed = "";
    this.closedValues = [];
    this.sources = [];
    this.fold = new TranscriptFold((m) => {
      if (!this.place(this.elements, m) || this.elements.length < 2) return;
      const closing = this.elements[this.elements.length - 2]!;
      const json = this.layout.json(closing);
      if (json !== "") this.closed += `${this.closed === "" ? "" : ","}${json}`;
      this.closedValues.push(...this.layout.values(closing));
    }, failedCalls(messages));
    return this.fold;
  }

  /** Adds `m` to `elements`; true when it started a new element. */
  private place(elements: E[], m: Message): boolean {
    const element = this.layout.element(this.model, m);
    const last = elements[elements.length - 1];
    if (last !== undefined && this.layout.join(last, element)) return false;
    elements.push(this.layout.copy(element));
    return true;
  }
}

/** `[closed, open...]` as one JSON array text, given the open elements' texts. */
export function arrayJson(closed: string, open: string[]): string {
  let out = closed;
  for (const text of open) if (text !== "") out += `${out === "" ? "" : ","}${text}`;
  return `[${out}]`;
}

/**
 * Elements of the APIs whose tool messages carry text only (Chat Completions, Responses): a
 * message's wire items, consecutive tool results one element, their images sent after them in
 * one user message.
 */
export interface ItemElement<T> {
  results: boolean;
  items: Wired<T>[];
  images: ImageContent[];
}

/** The layout of item elements but for each message's own element; `imagesMessage` is the API's user message of a run's images. */
export function itemLayout<T>(imagesMessage: (images: ImageContent[]) => T): Omit<WireLayout<ItemElement<T>>, "element"> & { items(e: ItemElement<T>): Wired<T>[] } {
  const items = (e: ItemElement<T>) => (e.images.length > 0 ? [...e.items, wired(imagesMessage(e.images))] : e.items);
  return {
    items,
    join(run, next) {
      if (!run.results || !next.results) return false;
      run.items.push(...next.items);
      run.images.push(...next.images);
      return true;
    },
    copy: (e) => ({ ...e, items: [...e.items], images: [...e.images] }),
    json: (e) => items(e).map((item) => item.json).join(","),
    values: (e) => items(e).map((item) => item.value),
  };
}
