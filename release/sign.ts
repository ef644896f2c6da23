import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifySignature } from "../core/update/signature.ts";

/**
 * Release signing. The private key comes from the environment (OMP_RELEASE_KEY, PEM) and never
 * from the repository; openssl makes the detached Ed25519 signature, the same tool install.sh uses
 * to check it.
 */

export interface SigningKey {
  privatePem: string;
  /** base64 SPKI DER: what omp and install.sh embed. */
  publicKey: string;
}

export function signingKeyFromEnv(env: NodeJS.ProcessEnv = process.env): SigningKey {
  const privatePem = env.OMP_RELEASE_KEY;
  if (!privatePem) {
    throw new Error(
      "OMP_RELEASE_KEY is not set: it must hold the PEM of the Ed25519 release signing key " +
        "(for a test release: OMP_RELEASE_KEY=\"$(openssl genpkey -algorithm ed25519)\")",
    );
  }
  let key;
  try {
    key = createPrivateKey(privatePem);
  } catch (error) {
    throw new Error(`OMP_RELEASE_KEY is not a PEM private key: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`OMP_RELEASE_KEY must be an Ed25519 key, not ${key.asymmetricKeyType}`);
  const publicKey = createPublicKey(key).export({ format: "der", type: "spki" }).toString("base64");
  return { privatePem, publicKey };
}

/** Signs `path` into `path.sig` with openssl and checks the result the way omp will. */
export async function signFile(path: string, key: SigningKey): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "omp-sign-"));
  const keyFile = join(dir, "key.pem");
  const signature = `${path}.sig`;
  try {
    writeFileSync(keyFile, key.privatePem, { mode: 0o600 });
    const child = Bun.spawn(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", keyFile, "-in", path, "-out", signature], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const stderr = await new Response(child.stderr).text();
    if ((await child.exited) !== 0) throw new Error(`openssl could not sign ${path}: ${stderr.trim()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!verifySignature(readFileSync(path), readFileSync(signature), key.publicKey)) {
    throw new Error(`the signature openssl made for ${path} does not verify`);
  }
  return signature;
}
