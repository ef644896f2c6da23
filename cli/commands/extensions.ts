import { resolve } from "node:path";
import { Extensions } from "../../core/extensions/extensions.ts";
import { extensionsJson, extensionsListing } from "../../core/extensions/listing.ts";
import { sessionExtensions } from "../../core/extensions/session.ts";
import { loadDotenv } from "../../core/config/dotenv.ts";
import { loadSettings } from "../../core/config/settings.ts";
import { builtinTools } from "../../core/tools/registry.ts";
import { configuredMcp } from "../../core/mcp/configured.ts";
import { folderTrust } from "../../core/trust/folder-trust.ts";
import { writeStdout } from "../shared/write.ts";

/**
 * `omp extensions [--json]`: every skill, command (MCP servers' prompts among them), hook, subagent and TypeScript extension for
 * the current folder, with its source file; shadowed and skipped items with why. Loads them as a
 * run would, so an untrusted folder's hooks and extensions are listed as skipped, never run.
 * Exit 0 even when some were skipped: the listing is how the user finds out.
 */
export async function runExtensions(options: { json?: boolean }): Promise<number> {
  const cwd = resolve(process.cwd());
  const env = process.env;
  const trusted = folderTrust(cwd, { env }).trusted;
  loadDotenv({ cwd, env, trusted });
  const { settings, layers } = loadSettings({ cwd, env, trusted });
  const extensions = new Extensions({ cwd, env });
  const quiet = () => {};
  await sessionExtensions({ cwd, env, layers, approvalMode: settings.approvalMode, extensionPaths: [], reservedToolNames: [...builtinTools().map((tool) => tool.name), "task"], warn: quiet, registry: extensions });
  // MCP servers' prompts are commands too: the servers are asked (each up to its start timeout).
  const mcp = configuredMcp({ cwd, env, waitForUncached: true, warn: quiet });
  if (mcp) extensions.addProvider(mcp.prompts);
  try {
    await extensions.settleProviders();
    await writeStdout(options.json ? `${JSON.stringify(extensionsJson(extensions), null, 2)}\n` : `${extensionsListing(extensions).map((line) => line.text).join("\n")}\n`);
  } finally {
    await mcp?.close();
  }
  return 0;
}
