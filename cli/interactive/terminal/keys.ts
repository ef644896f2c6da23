/**
 * Turning terminal input into keys. Terminals encode the same key in several ways (legacy control
 * bytes, xterm CSI with modifier parameters, modifyOtherKeys, the Kitty keyboard protocol); all of
 * them end up as one `Key`, named by `keyId` (`ctrl+a`, `alt+enter`, `shift+tab`, `up`).
 */

export interface Key {
  /** `a`, `enter`, `up`, `f5`, ...; for printable characters the character itself. */
  name: string;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  /** What typing this key inserts, when it inserts anything. */
  text?: string;
}

export type InputEvent =
  | { type: "key"; key: Key }
  | { type: "paste"; text: string }
  /** An answer to one of our queries (DA1, OSC 11, Kitty flags): never a key. */
  | { type: "reply"; data: string };

/** `ctrl+alt+shift+name`, modifiers in that order; plain characters are their text. */
export function keyId(key: Key): string {
  if (key.text !== undefined && !key.ctrl && !key.alt) return key.text;
  return `${key.ctrl ? "ctrl+" : ""}${key.alt ? "alt+" : ""}${key.shift ? "shift+" : ""}${key.name}`;
}

const plain = (name: string, mods: Partial<Key> = {}): Key => ({ name, ctrl: false, alt: false, shift: false, ...mods });

const LEGACY_TILDE: Record<string, string> = {
  "1": "home",
  "2": "insert",
  "3": "delete",
  "4": "end",
  "5": "pageup",
  "6": "pagedown",
  "7": "home",
  "8": "end",
  "11": "f1",
  "12": "f2",
  "13": "f3",
  "14": "f4",
  "15": "f5",
  "17": "f6",
  "18": "f7",
  "19": "f8",
  "20": "f9",
  "21": "f10",
  "23": "f11",
  "24": "f12",
};

const LETTER_FINALS: Record<string, string> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", E: "clear", P: "f1", Q: "f2", R: "f3", S: "f4" };

/** Modifier bits as xterm and Kitty send them: the parameter is 1 + shift(1) + alt(2) + ctrl(4) (+ super, ignored). */
function withModifiers(key: Key, parameter: number): Key {
  const bits = Math.max(0, parameter - 1);
  const shift = key.shift || (bits & 1) !== 0;
  const alt = key.alt || (bits & 2) !== 0;
  const ctrl = key.ctrl || (bits & 4) !== 0;
  return { ...key, shift, alt, ctrl, text: ctrl || alt ? undefined : key.text };
}

/** A key from a Unicode code point, as Kitty and modifyOtherKeys report them. */
function fromCodePoint(code: number): Key {
  switch (code) {
    case 13:
      return plain("enter");
    case 9:
      return plain("tab");
    case 8:
    case 127:
      return plain("backspace");
    case 27:
      return plain("escape");
    case 32:
      return plain("space", { text: " " });
  }
  if (code < 32) return controlKey(code);
  const char = String.fromCodePoint(code);
  return plain(char.toLowerCase(), { text: char });
}

function controlKey(code: number): Key {
  switch (code) {
    case 0:
      return plain("space", { ctrl: true });
    case 9:
      return plain("tab");
    case 10:
      return plain("linefeed");
    case 13:
      return plain("enter");
    case 8:
      return plain("backspace");
    case 27:
      return plain("escape");
  }
  if (code >= 1 && code <= 26) return plain(String.fromCharCode(code + 96), { ctrl: true });
  return plain(["\\", "]", "^", "_"][code - 28] ?? "unknown", { ctrl: true });
}

/** One CSI sequence (`ESC [ params final`) as a key, or undefined for ones that are not keys. */
function decodeCsi(params: string, final: string): Key | undefined {
  if (final === "u") {
    // Kitty: code[:shifted[:base]] ; modifiers[:event] ; text
    const [codes = "", mods = "1"] = params.split(";");
    const [modifier, event] = mods.split(":");
    if (event === "3") return undefined; // key release
    const code = Number(codes.split(":")[0]);
    if (!Number.isFinite(code)) return undefined;
    const key = withModifiers(fromCodePoint(code), Number(modifier || 1));
    // Shift plus a letter types the capital: keep it as text when nothing else is held.
    if (key.shift && !key.ctrl && !key.alt && key.name.length === 1) {
      const shifted = Number(codes.split(":")[1]);
      const text = Number.isFinite(shifted) && shifted > 0 ? String.fromCodePoint(shifted) : key.name.toUpperCase();
      return { ...key, text };
    }
    return key;
  }
  if (final === "~") {
    const [first = "", second = "1", third] = params.split(";");
    if (first === "27" && third !== undefined) return withModifiers(fromCodePoint(Number(third)), Number(second)); // modifyOtherKeys
    const name = LEGACY_TILDE[first];
    return name ? withModifiers(plain(name), Number(second)) : undefined;
  }
  if (final === "Z") return plain("tab", { shift: true });
  const name = LETTER_FINALS[final];
  if (!name) return undefined;
  const modifier = params.includes(";") ? Number(params.split(";")[1]) : 1;
  return withModifiers(plain(name), modifier);
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

type Parsed = { length: number; event?: InputEvent } | "incomplete";

/**
 * Splits the stdin stream into events. Escape sequences can arrive split across reads, so an
 * unfinished one stays buffered; a lone ESC is only an Escape key once no more bytes follow
 * (`pending` says so, and the caller calls `flush` after a short wait).
 */
export class InputReader {
  private buffer = "";
  private paste: string | undefined;

  get pending(): boolean {
    return this.buffer.length > 0;
  }

  feed(data: string): InputEvent[] {
    this.buffer += data;
    const events: InputEvent[] = [];
    for (;;) {
      if (this.paste !== undefined) {
        const end = this.buffer.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possible start of the end marker back.
          const keep = Math.min(this.buffer.length, PASTE_END.length - 1);
          this.paste += this.buffer.slice(0, this.buffer.length - keep);
          this.buffer = this.buffer.slice(this.buffer.length - keep);
          return events;
        }
        events.push({ type: "paste", text: this.paste + this.buffer.slice(0, end) });
        this.paste = undefined;
        this.buffer = this.buffer.slice(end + PASTE_END.length);
        continue;
      }
      if (this.buffer.length === 0) return events;
      if (this.buffer.startsWith(PASTE_START)) {
        this.paste = "";
        this.buffer = this.buffer.slice(PASTE_START.length);
        continue;
      }
      const parsed = parseOne(this.buffer);
      if (parsed === "incomplete") {
        // A sequence that never ends is garbage, not a key in flight.
        if (this.buffer.length < 256) return events;
        events.push(...this.flush());
        continue;
      }
      if (parsed.event) events.push(parsed.event);
      this.buffer = this.buffer.slice(parsed.length);
    }
  }

  /** No more bytes came: a buffered ESC was the Escape key, and whatever followed it is typed text. */
  flush(): InputEvent[] {
    if (this.buffer.length === 0 || this.paste !== undefined) return [];
    const rest = this.buffer.slice(1);
    this.buffer = "";
    return [{ type: "key", key: plain("escape") }, ...this.feed(rest)];
  }
}

function parseOne(buffer: string): Parsed {
  const first = buffer.codePointAt(0)!;
  if (first !== 0x1b) {
    const char = String.fromCodePoint(first);
    const key = first < 32 || first === 127 ? (first === 127 ? plain("backspace") : controlKey(first)) : plain(char.toLowerCase(), { text: char, shift: char !== char.toLowerCase() });
    return { length: char.length, event: { type: "key", key } };
  }
  if (buffer.length === 1) return "incomplete";
  const second = buffer[1]!;
  if (second === "[") return parseCsi(buffer, 0);
  if (second === "O") {
    if (buffer.length < 3) return "incomplete";
    const name = LETTER_FINALS[buffer[2]!];
    return { length: 3, ...(name ? { event: { type: "key", key: plain(name) } } : {}) };
  }
  if (second === "]" || second === "P" || second === "_" || second === "^" || second === "X") {
    const end = stringTerminator(buffer, second === "]");
    if (end === -1) return "incomplete";
    return { length: end, event: { type: "reply", data: buffer.slice(0, end) } };
  }
  if (second === "\x1b") {
    // ESC ESC [A is Alt+Up in terminals that prefix ESC for Alt; a bare ESC ESC is two Escapes.
    if (buffer.length === 2) return "incomplete";
    if (buffer[2] === "[" || buffer[2] === "O") {
      const inner = parseOne(buffer.slice(1));
      if (inner === "incomplete") return inner;
      if (inner.event?.type === "key") return { length: inner.length + 1, event: { type: "key", key: { ...inner.event.key, alt: true, text: undefined } } };
      return { length: inner.length + 1, ...(inner.event ? { event: inner.event } : {}) };
    }
    return { length: 1, event: { type: "key", key: plain("escape") } };
  }
  // ESC + character: Alt held.
  const code = buffer.codePointAt(1)!;
  const char = String.fromCodePoint(code);
  const base = code < 32 || code === 127 ? fromCodePoint(code === 127 ? 127 : code) : plain(char.toLowerCase(), { shift: char !== char.toLowerCase() });
  return { length: 1 + char.length, event: { type: "key", key: { ...base, alt: true, text: undefined } } };
}

function parseCsi(buffer: string, start: number): Parsed {
  let i = start + 2;
  while (i < buffer.length && buffer.charCodeAt(i) >= 0x20 && buffer.charCodeAt(i) <= 0x3f) i++;
  if (i >= buffer.length) return "incomplete";
  const code = buffer.charCodeAt(i);
  if (code < 0x40 || code > 0x7e) return { length: i - start, event: undefined };
  const params = buffer.slice(start + 2, i);
  const final = buffer[i]!;
  const length = i + 1 - start;
  // `?`-prefixed answers (DA1, Kitty flags, DECRQM) and `$y` reports are replies to our probes.
  if (params.startsWith("?") || params.includes("$")) return { length, event: { type: "reply", data: buffer.slice(start, start + length) } };
  const key = decodeCsi(params, final);
  return { length, ...(key ? { event: { type: "key", key } } : {}) };
}

/** Index just past the BEL or ST ending an OSC/DCS/APC string, or -1 while it is unfinished. */
function stringTerminator(buffer: string, bellEnds: boolean): number {
  for (let i = 2; i < buffer.length; i++) {
    if (bellEnds && buffer[i] === "\x07") return i + 1;
    if (buffer[i] === "\x1b") {
      if (i + 1 >= buffer.length) return -1;
      if (buffer[i + 1] === "\\") return i + 2;
    }
  }
  return -1;
}
