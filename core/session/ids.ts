/** Web Crypto rather than node:crypto, whose import costs milliseconds at start-up. */
function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** 16 hex characters: unique across sessions without coordination. */
export function newSessionId(): string {
  return randomHex(8);
}

/** 8 hex characters not yet used in the session. */
export function newEntryId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = randomHex(4);
    if (!taken.has(id)) return id;
  }
}
