/** A string value of the arguments, with the key it is under (an array's items under their array's key). */
export interface JsonString {
  key: string;
  value: string;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };

/**
 * The string values of a JSON object as it streams in, read piece by piece (each character once,
 * however many deltas a call's arguments arrive in); the last value may be cut short. A rule is
 * matched against what a tool call's arguments say, not their escaping.
 */
export class PartialJsonStrings {
  readonly strings: JsonString[] = [];
  private readonly stack: { array: boolean; key: string }[] = [];
  private expectKey = false;
  private lastKey = "";
  /** Inside a string: its text so far, and an escape begun at the end of the last piece. */
  private open: { text: string; escape: string | undefined; entry?: JsonString } | undefined;

  feed(piece: string): void {
    for (const char of piece) {
      if (this.open) this.inString(char);
      else this.outside(char);
    }
  }

  private outside(char: string): void {
    if (char === "{") {
      this.stack.push({ array: false, key: this.lastKey });
      this.expectKey = true;
    } else if (char === "[") {
      this.stack.push({ array: true, key: this.lastKey });
      this.expectKey = false;
    } else if (char === "}" || char === "]") {
      this.stack.pop();
      this.expectKey = false;
    } else if (char === ",") this.expectKey = this.stack.at(-1)?.array === false;
    else if (char === ":") this.expectKey = false;
    else if (char === '"') {
      this.open = { text: "", escape: undefined };
      if (!this.expectKey) {
        const top = this.stack.at(-1);
        this.open.entry = { key: top?.array ? top.key : this.lastKey, value: "" };
        this.strings.push(this.open.entry);
      }
    }
  }

  private inString(char: string): void {
    const open = this.open!;
    if (open.escape !== undefined) {
      open.escape += char;
      if (open.escape[0] === "u" && open.escape.length < 5) return;
      this.append(open.escape[0] === "u" ? (/^u[0-9a-fA-F]{4}$/.test(open.escape) ? String.fromCharCode(Number.parseInt(open.escape.slice(1), 16)) : "") : (ESCAPES[open.escape] ?? open.escape));
      open.escape = undefined;
    } else if (char === "\\") open.escape = "";
    else if (char === '"') {
      if (!open.entry) this.lastKey = open.text;
      this.open = undefined;
    } else this.append(char);
  }

  private append(text: string): void {
    const open = this.open!;
    open.text += text;
    if (open.entry) open.entry.value = open.text;
  }
}

/** The string values of `json` as far as it goes (see PartialJsonStrings). */
export function partialJsonStrings(json: string): JsonString[] {
  const reader = new PartialJsonStrings();
  reader.feed(json);
  return reader.strings;
}
