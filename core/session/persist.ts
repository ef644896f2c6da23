import type { Redactor } from "./redact.ts";

/** Longest string stored in a session file; beyond it a tool output or paste is cut. */
export const MAX_PERSIST_CHARS = 500_000;

export function truncationMarker(dropped: number): string {
  return `\n[omp: ${dropped} more characters were not saved in the session file]`;
}

/**
 * Fields that hold provider data to be sent back byte for byte (thinking signatures, encrypted
 * reasoning, tool-call round-trip data) or base64 images. Rewriting them would not protect a secret
 * (they hold none in readable form) but would break resuming: a provider rejects a signature that
 * was touched, and a token-shaped run of base64 is common in a large image.
 */
function isOpaque(parent: Record<string, unknown>, key: string): boolean {
  return key === "signature" || key === "providerData" || (key === "data" && parent.type === "image");
}

function prepareString(text: string, redactor: Redactor): string {
  const redacted = redactor.redact(text);
  if (redacted.length <= MAX_PERSIST_CHARS) return redacted;
  return redacted.slice(0, MAX_PERSIST_CHARS) + truncationMarker(redacted.length - MAX_PERSIST_CHARS);
}

/**
 * A copy of `value` fit for the session file: every readable string redacted and then cut to
 * {@link MAX_PERSIST_CHARS} (redacting first, so a cut cannot leave half a secret that no longer
 * matches). The caller's objects are not modified.
 */
export function prepareForDisk<T>(value: T, redactor: Redactor): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return prepareString(node, redactor);
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const source = node as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(source)) copy[key] = isOpaque(source, key) ? child : walk(child);
    return copy;
  };
  return walk(value) as T;
}
