import { resolve } from "node:path";
import { Extensions } from "../core/extensions/extensions.ts";
import { extensionsJson, extensionsListing } from "../core/extensions/listing.ts";
import { loadDotenv } from "../core/config/dotenv.ts";
import { writeStdout } from "./write.ts";

/**
 * `omp extensions [--json]`: every skill and command (and whatever other kinds the loaders
 * record) for the current folder, with its source file; shadowed and skipped items with why.
 * Exit 0 even when some were skipped: the listing is how the user finds out.
 */
export async function runExtensions(options: { json?: boolean }): Promise<number> {
  const cwd = resolve(process.cwd());
  loadDotenv({ cwd, env: process.env });
  const extensions = new Extensions({ cwd, env: process.env });
  if (options.json) {
    await writeStdout(`${JSON.stringify(extensionsJson(extensions), null, 2)}\n`);
    return 0;
  }
  await writeStdout(`${extensionsListing(extensions).map((line) => line.text).join("\n")}\n`);
  return 0;
}
