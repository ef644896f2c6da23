/**
 * JSON as hand-edited config files hold it: strict JSON first; when that fails, once more with a
 * byte-order mark, `//` and `/* *\/` comments, trailing commas and anything after the top-level
 * value removed (what editors and copy-paste leave behind). Throws the strict parser's error when
 * even that does not parse, so the message names the real problem.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    try {
      return JSON.parse(cleaned(text));
    } catch {
      throw error;
    }
  }
}

function cleaned(text: string): string {
  let out = "";
  let depth = 0;
  let started = false;
  const source = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '"') {
      let end = i + 1;
      while (end < source.length && source[end] !== '"') end += source[end] === "\\" ? 2 : 1;
      out += source.slice(i, end + 1);
      i = end;
      continue;
    }
    if (char === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (char === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 1;
      continue;
    }
    if (char === "{" || char === "[") {
      depth++;
      started = true;
    }
    if (char === "}" || char === "]") {
      depth--;
      out = out.replace(/,\s*$/, "");
    }
    out += char;
    if (started && depth === 0) break;
  }
  return out;
}
