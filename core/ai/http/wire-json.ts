/**
 * Every request carries the whole conversation again, and converting each message to its wire form
 * and serialising it anew made a request cost more with every turn (a tenth of a 100-call loop's
 * CPU, and most of its garbage). A message is never changed once recorded — a change is a new
 * message object — and neither is a session's tool list, so their wire forms and JSON text are
 * kept with them and a request only puts the kept texts together. The bytes sent are those
 * JSON.stringify would write for the same body (test/unit/ai/wire-json.test.ts checks each API).
 */
const kept = new WeakMap<object, Map<string, unknown>>();

/** `make()` for `source` (a message, a tool list), made once per `key`: the wire API and whatever else its form depends on. */
export function keptWire<T>(source: object, key: string, make: () => T): T {
  let forms = kept.get(source);
  if (!forms) kept.set(source, (forms = new Map()));
  if (forms.has(key)) return forms.get(key) as T;
  const value = make();
  forms.set(key, value);
  return value;
}

/** A wire value and its JSON text. */
export interface Wired<T> {
  value: T;
  json: string;
}

export function wired<T>(value: T): Wired<T> {
  return { value, json: JSON.stringify(value) };
}

/** `JSON.stringify(object)` of an object whose JSON text ends with `}`, with `key: value` added last, as an assignment adds it. */
export function withLastKey(json: string, key: string, value: unknown): string {
  return `${json.slice(0, -1)}${json === "{}" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}}`;
}

/** JSON.stringify(body), byte for byte, taking the JSON text of the keys in `wired` that still hold the value given there. */
export function bodyJson(body: Record<string, unknown>, wired: Record<string, Wired<unknown>>): string {
  let out = "";
  for (const name of Object.keys(body)) {
    const kept = Object.hasOwn(wired, name) ? wired[name] : undefined;
    const text = kept !== undefined && kept.value === body[name] ? kept.json : JSON.stringify(body[name]);
    if (text === undefined) continue;
    out += `${out === "" ? "{" : ","}${JSON.stringify(name)}:${text}`;
  }
  return out === "" ? "{}" : `${out}}`;
}
