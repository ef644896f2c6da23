/**
 * The Ed25519 public key that signs omp releases (SPKI DER, base64). release/install.sh carries the
 * same key; a release built with another key (tests, forks) embeds that key instead, through
 * `trustReleaseKey`, which the compiled entry calls before the CLI runs (see embed/build.ts).
 */
export const OFFICIAL_RELEASE_KEY = "MCowBQYDK2VwAyEASBaC3tn4F7LuED+5nPw7tRfrSkoUZwIOvZibQKS/D9Y=";

let trusted = OFFICIAL_RELEASE_KEY;

export function trustReleaseKey(key: string): void {
  trusted = key;
}

/** The key that SHA256SUMS.sig must verify against for this binary to accept a release. */
export function trustedReleaseKey(): string {
  return trusted;
}
