import { createHash, randomBytes } from "node:crypto";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** RFC 7636 S256: a 43-character verifier and the hash the authorization server checks it against. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash("sha256").update(verifier).digest()) };
}

/** An unguessable `state`, checked on the callback so that another site cannot inject its own code. */
export const newState = () => randomBytes(16).toString("hex");
