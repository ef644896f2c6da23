import { type KeyObject, createPublicKey, verify } from "node:crypto";

/**
 * Ed25519 keys and signatures. Releases sign SHA256SUMS with a detached, raw Ed25519 signature (what
 * `openssl pkeyutl -sign -rawin` makes), so openssl ≥ 1.1.1 in install.sh and node:crypto here
 * verify the same bytes.
 */

const PEM = /-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/;

function publicKeyObject(base64Der: string): KeyObject {
  return createPublicKey({ key: Buffer.from(base64Der, "base64"), format: "der", type: "spki" });
}

/**
 * A public key given as PEM or as base64 SPKI DER, normalised to base64 SPKI DER. Throws when it
 * is not an Ed25519 public key, so a wrong key fails the build, not the first update.
 */
export function normalizePublicKey(input: string): string {
  const pem = PEM.exec(input);
  const base64 = (pem ? pem[1]! : input).replace(/\s+/g, "");
  let key: KeyObject;
  try {
    key = publicKeyObject(base64);
  } catch (error) {
    throw new Error(`not a public key in PEM or base64 SPKI form: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`the release key must be Ed25519, not ${key.asymmetricKeyType}`);
  return key.export({ format: "der", type: "spki" }).toString("base64");
}

export function verifySignature(data: Uint8Array, signature: Uint8Array, base64Der: string): boolean {
  try {
    return verify(null, data, publicKeyObject(base64Der), signature);
  } catch {
    return false;
  }
}
