import { OmpError } from "../errors/omp-error.ts";
import { parseSha256Sums } from "./sha256sums.ts";
import { verifySignature } from "./signature.ts";

/**
 * The root of trust for a release: SHA256SUMS, accepted only with a valid Ed25519 signature by the
 * release key this binary trusts. Every other file is then checked against it.
 */
export class VerifiedSums {
  private constructor(private readonly sums: Map<string, string>) {}

  static verify(text: Uint8Array, signature: Uint8Array, key: string, where: string): VerifiedSums {
    if (!verifySignature(text, signature, key)) {
      throw new OmpError(
        `the signature of SHA256SUMS from ${where} does not verify with omp's release key: the release was tampered with, ` +
          "damaged in transit, or signed by someone else. Nothing was changed.",
      );
    }
    try {
      return new VerifiedSums(parseSha256Sums(new TextDecoder().decode(text)));
    } catch (error) {
      throw new OmpError(`SHA256SUMS from ${where} is signed but unreadable: ${(error as Error).message}`);
    }
  }

  sha256Of(name: string): string | undefined {
    return this.sums.get(name);
  }

  /** The listed name whose checksum is `sha256`, for telling a user which file they really have. */
  nameOf(sha256: string): string | undefined {
    for (const [name, sum] of this.sums) if (sum === sha256) return name;
    return undefined;
  }

  /** Throws unless `name` is listed with exactly `sha256`. */
  expect(name: string, sha256: string, what: string): void {
    const listed = this.sums.get(name);
    if (listed === undefined) throw new OmpError(`SHA256SUMS does not list ${name}; refusing ${what}`);
    if (listed !== sha256) {
      throw new OmpError(`${what} does not match SHA256SUMS (sha256 ${sha256}, expected ${listed}): it was tampered with or damaged. Nothing was changed.`);
    }
  }
}
