/**
 * The string values of a JSON object as far as it has streamed, each with the key it is under
 * (an array's items under their array's key); the last one may be cut short. Tool-call arguments
 * arrive as pieces of JSON: a rule is matched against what the arguments say, not their escaping.
 */
export function partialJsonStrings(json: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  const stack: { array: boolean; key: string }[] = [];
  let expectKey = false;
  let lastKey = "";
  for (let i = 0; i < json.length; i++) {
    const char = json[i]!;
    if (char === "{") {
      stack.push({ array: false, key: lastKey });
      expectKey = true;
    } else if (char === "[") {
      stack.push({ array: true, key: lastKey });
      expectKey = false;
    } else if (char === "}" || char === "]") {
      stack.pop();
      expectKey = false;
    } else if (char === ",") {
      expectKey = stack.at(-1)?.array === false;
    } else if (char === ":") {
      expectKey = false;
    } else if (char === '"') {
      let value = "";
      let j = i + 1;
      for (; j < json.length && json[j] !== '"'; j++) {
        if (json[j] !== "\\") {
          value += json[j];
          continue;
        }
        const escaped = json[++j];
        if (escaped === undefined) break;
        if (escaped === "u") {
          const hex = json.slice(j + 1, j + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
          value += String.fromCharCode(Number.parseInt(hex, 16));
          j += 4;
        } else value += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[escaped] ?? escaped;
      }
      if (expectKey) lastKey = value;
      else out.push({ key: stack.at(-1)?.array ? stack.at(-1)!.key : lastKey, value });
      i = j;
    }
  }
  return out;
}
