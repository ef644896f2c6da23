import type { ImageContent, TextContent } from "../ai/messages.ts";
import type { CatalogEntry } from "./catalog.ts";
import type { Source } from "./sources.ts";

/**
 * Slash commands that come from something other than files: MCP servers' prompts. Their list is
 * known only once a server answered (or from its cache), and may change while omp runs, so a
 * provider is asked each time rather than loaded once.
 */
export interface ProvidedCommand {
  name: string;
  description: string;
  /** `<city> [state]`: the arguments it declares, required ones in angle brackets. */
  argumentHint?: string;
  /** The file that configured it (an mcp.json), for listings. */
  path: string;
  source: Source;
  /** What it is, in one line of the listing: `prompt "review" of MCP server "edge"`. */
  detail: string;
  /** The user turn `/name args` sends; throws (an OmpError) when the arguments do not fit. */
  expand(args: string, signal?: AbortSignal): Promise<(TextContent | ImageContent)[]>;
}

export interface CommandProvider {
  /** What it offers now: for completion, listings and invocation. */
  commands(): ProvidedCommand[];
  /**
   * Names in its namespace (`mcp__…`): such a name it does not know yet is waited for
   * (servers still starting) rather than sent to the model as text.
   */
  owns(name: string): boolean;
  /** Resolves once it knows every command it will (each server started or failed); never rejects. */
  settled(): Promise<void>;
  /** Why `name`, one of its own, is unknown, and what it offers instead. */
  unknown(name: string): string;
}

/**
 * The provided commands in use: first wins by name, and a name a markdown or extension command
 * already has stays theirs (the user's own file wins, as between files). The others are listed as
 * shadowed, with what shadows them.
 */
export function resolveProvided(providers: readonly CommandProvider[], taken: ReadonlyMap<string, string>): { commands: ProvidedCommand[]; shadowed: CatalogEntry[] } {
  const owners = new Map(taken);
  const commands: ProvidedCommand[] = [];
  const shadowed: CatalogEntry[] = [];
  for (const provider of providers) {
    for (const command of provider.commands()) {
      const key = command.name.toLowerCase();
      const owner = owners.get(key);
      if (owner !== undefined) {
        shadowed.push({ ...catalogEntry(command), status: "shadowed", reason: `shadowed by ${owner}` });
        continue;
      }
      owners.set(key, command.detail);
      commands.push(command);
    }
  }
  return { commands, shadowed };
}

export function catalogEntry(command: ProvidedCommand): CatalogEntry {
  return { kind: "command", name: command.name, status: "loaded", path: command.path, source: command.source, description: command.description, detail: command.detail };
}
