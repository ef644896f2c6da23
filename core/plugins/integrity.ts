import { OmpError } from "../errors/omp-error.ts";

/**
 * Checks downloaded bytes against an npm-style integrity (Subresource Integrity, sha512 preferred
 * when several are listed) or, for old registry entries, a hex sha1 shasum.
 */
export function verifyIntegrity(bytes: Uint8Array, what: string, integrity: string | undefined, shasum?: string): void {
  const sri = integrity?.split(/\s+/).find((part) => part.startsWith("sha512-")) ?? integrity?.split(/\s+/)[0];
  if (sri) {
    const [algorithm, expected] = [sri.slice(0, sri.indexOf("-")), sri.slice(sri.indexOf("-") + 1)];
    if (!["sha512", "sha384", "sha256", "sha1"].includes(algorithm)) throw new OmpError(`${what}: unsupported integrity algorithm ${algorithm}`);
    const actual = new Bun.CryptoHasher(algorithm as "sha512").update(bytes).digest("base64");
    if (actual !== expected) throw new OmpError(`${what}: the tarball does not match its integrity ${algorithm}; refusing it (a corrupted download or a tampered mirror)`);
    return;
  }
  if (shasum) {
    if (new Bun.CryptoHasher("sha1").update(bytes).digest("hex") !== shasum) throw new OmpError(`${what}: the tarball does not match its shasum; refusing it`);
    return;
  }
  throw new OmpError(`${what}: no integrity was given for its tarball; refusing to install unverified code`);
}
