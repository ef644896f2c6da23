/** Named keys the model may write as `<name>`, as a terminal in normal cursor mode sends them. */
const NAMED: Record<string, string> = {
  enter: "\r",
  cr: "\r",
  tab: "\t",
  esc: "\x1b",
  bs: "\x7f",
  backspace: "\x7f",
  space: " ",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pgup: "\x1b[5~",
  pgdn: "\x1b[6~",
  del: "\x1b[3~",
};

/**
 * Turns what the model writes into the bytes a keyboard would send: C escapes (`\r`, `\n`, `\t`,
 * `\e`, `\xHH`, `\uHHHH`, `\\`) and named keys (`<up>`, `<enter>`, `<c-c>`). Anything else is sent
 * as written, so `<div>` stays `<div>`. With `applicationCursor`, arrows go as a terminal in that
 * mode sends them (ESC O A).
 */
export function decodeKeys(input: string, applicationCursor = false): string {
  return input.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[rnte\\0])|<([a-zA-Z]+|[cC]-[a-zA-Z@\[\]\\^_])>/g, (whole, escape: string | undefined, name: string | undefined) => {
    if (escape !== undefined) {
      if (escape[0] === "x" || escape[0] === "u") return String.fromCharCode(Number.parseInt(escape.slice(1), 16));
      return { r: "\r", n: "\n", t: "\t", e: "\x1b", "\\": "\\", "0": "\0" }[escape]!;
    }
    const key = name!.toLowerCase();
    if (key.startsWith("c-")) return String.fromCharCode(key.toUpperCase().charCodeAt(2) & 0x1f);
    const bytes = NAMED[key];
    if (bytes === undefined) return whole;
    return applicationCursor && /^\x1b\[[ABCD]$/.test(bytes) ? `\x1bO${bytes[2]}` : bytes;
  });
}
