/**
 * What the host shares is bounded: a tool result of a whole file or an image would otherwise go
 * to every guest in full. Long strings are cut with a note of how much stayed on the host; the
 * shape stays as it was, so guests render the trimmed value like any other.
 */
export function trimStrings<T>(value: T, maxChars: number): T {
  if (typeof value === "string") {
    return (value.length > maxChars ? `${value.slice(0, maxChars)}… (${value.length - maxChars} more characters on the host)` : value) as T;
  }
  if (Array.isArray(value)) return value.map((item) => trimStrings(item, maxChars)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = trimStrings(item, maxChars);
    return out as T;
  }
  return value;
}
