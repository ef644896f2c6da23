import { randomBytes } from "node:crypto";

/** 16 hex characters: unique across sessions without coordination. */
export function newSessionId(): string {
  return randomBytes(8).toString("hex");
}

/** 8 hex characters not yet used in the session. */
export function newEntryId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}
