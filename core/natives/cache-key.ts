import { sha256Hex } from "./extract.ts";
import { type EmbeddedNatives, getEmbeddedExtras } from "./payload.ts";

/**
 * This build's dir in the natives cache: `<version>+<hash>`, the hash over every file the build
 * puts there (addon variants, sandbox launcher, extras). Two builds of one version share a dir only
 * when they share its bytes, so neither loads the other's addon nor extracts over it. The dirs of
 * older omps, named `<version>` alone, are pruned like any other version's (prune.ts).
 */
export function cacheDirName(natives: EmbeddedNatives): string {
  const { manifest } = natives;
  const files = [...manifest.files, ...(manifest.launcher ? [manifest.launcher] : []), ...(getEmbeddedExtras()?.files ?? [])];
  const listing = files.map((file) => `${file.name} ${file.sha256}`).join("\n");
  return `${manifest.version}+${sha256Hex(new TextEncoder().encode(listing)).slice(0, 16)}`;
}
