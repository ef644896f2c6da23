/**
 * Where and why a JSON text does not parse, in words a person fixing the file can act on
 * ("line 3, column 27: a trailing comma before }"). The runtime's own JSON.parse message names
 * neither line nor column, so a hand-edited config file's mistake would be a hunt.
 */

class SyntaxAt extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function shown(char: string | undefined): string {
  if (char === undefined) return "the end of the file";
  if (char === "'") return "' (JSON strings need double quotes)";
  return JSON.stringify(char);
}

/** The first syntax error of `text` as "line L, column C: what", or undefined when it is valid JSON. */
export function jsonSyntaxError(text: string): string | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw new SyntaxAt(i, message);
  };
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const char = text[i]!;
      if (char === '"') {
        i++;
        return;
      }
      if (char === "\n") fail("a line break inside a string (a missing closing quote?)");
      i += char === "\\" ? 2 : 1;
    }
    fail("a string that never ends (a missing closing quote?)");
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === "{") return members("}", () => {
      if (text[i] !== '"') fail(`expected a property name in double quotes, found ${shown(text[i])}`);
      string();
      space();
      if (text[i] !== ":") fail(`expected : after the property name, found ${shown(text[i])}`);
      i++;
      value();
    });
    if (char === "[") return members("]", value);
    if (char === '"') return string();
    if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail("not a valid number");
      i = NUMBER.lastIndex;
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    fail(`expected a value, found ${shown(char)}`);
  };
  const members = (close: string, member: () => void) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      space();
      if (text[i] === close) fail(`a trailing comma before ${close}`);
      member();
      space();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail(text[i] === undefined ? `the file ends before its closing ${close}` : `expected , or ${close} (a missing comma?), found ${shown(text[i])}`);
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    space();
    if (i < text.length) fail(`more after the JSON value: ${shown(text[i])}`);
    return undefined;
  } catch (error) {
    if (!(error instanceof SyntaxAt)) throw error;
    const before = text.slice(0, error.offset);
    const line = before.split("\n").length;
    const column = error.offset - before.lastIndexOf("\n");
    return `line ${line}, column ${column}: ${error.message}`;
  }
}
