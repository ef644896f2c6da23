import type { ExtensionContext } from "./api.ts";
import type { LoadedCommand } from "./load.ts";

/**
 * A prompt that names an extension's command (`/name args`) runs its handler. Returns undefined
 * when the prompt is not such a command; otherwise the prompt to send instead (the handler's
 * string), or null when the handler did the work itself.
 */
export async function runExtensionCommand(commands: readonly LoadedCommand[], text: string, context: ExtensionContext): Promise<string | null | undefined> {
  const match = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = match && commands.find((candidate) => candidate.name === match[1]);
  if (!command) return undefined;
  const prompt = await command.handler(match[2]?.trim() ?? "", context);
  return typeof prompt === "string" && prompt.trim() !== "" ? prompt : null;
}
