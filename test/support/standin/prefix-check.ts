/**
 * Anthropic's preserved-thinking prefix check, as the API enforces it for accounts created since
 * 2026-08-31: a signed thinking block sent back is valid only while `system`, `tools` and every
 * message before it are exactly what was sent when the block was produced. The stand-in notes
 * that prefix for each signature it issues and refuses a later request whose prefix differs
 * with the API's 400. Cache breakpoints move from request to request and are not part of it.
 */
export class PrefixCheck {
  private readonly issued = new Map<string, string>();

  /** The request `body` is answered with a thinking block signed `signature`. */
  issue(signature: string, body: any): void {
    this.issued.set(signature, fingerprint(body, body?.messages?.length ?? 0));
  }

  /** The API's error message for the first thinking block of `body` that fails, or undefined. */
  check(body: any): string | undefined {
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    for (const [i, message] of messages.entries()) {
      if (message?.role !== "assistant" || !Array.isArray(message.content)) continue;
      for (const [j, block] of message.content.entries()) {
        if (block?.type !== "thinking" && block?.type !== "redacted_thinking") continue;
        const signature = block.type === "thinking" ? block.signature : block.data;
        const expected = this.issued.get(signature);
        if (expected === undefined) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        if (expected !== fingerprint(body, i)) {
          return `messages.${i}.content.${j}: the prefix of this thinking block (system, tools and earlier messages) changed since the block was produced; send it back only with the prefix it was produced after, or remove it`;
        }
      }
    }
    return undefined;
  }
}

function fingerprint(body: any, messageCount: number): string {
  return JSON.stringify(withoutCacheControl({ system: body?.system ?? null, tools: body?.tools ?? null, messages: (body?.messages ?? []).slice(0, messageCount) }));
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "cache_control").map(([key, v]) => [key, withoutCacheControl(v)]));
}
