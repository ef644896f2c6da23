import type { ImageContent, TextContent } from "../ai/messages.ts";
import { OmpError } from "../errors/omp-error.ts";
import { splitArgs } from "../extensions/args.ts";
import type { CommandProvider, ProvidedCommand } from "../extensions/provided.ts";
import type { SourceKind } from "../extensions/sources.ts";
import type { ServerScope } from "./config-schema-types.ts";
import type { McpConnection } from "./connection.ts";
import { mcpToolName } from "./names.ts";
import { type McpContent, contentBlock } from "./results.ts";
import type { McpPromptInfo } from "./tool-cache.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** A server as the prompt commands need it: its prompts as known now (live, else cached). */
export interface PromptServer {
  name: string;
  scope: ServerScope;
  /** The config file it came from, as shown to the user. */
  source: string;
  prompts: McpPromptInfo[];
}

/** What the prompt commands need from the MCP servers of this process. */
export interface PromptHost {
  servers(): PromptServer[];
  /** The server's live connection, starting the servers if need be; undefined when it is not running. */
  connection(name: string): Promise<McpConnection | undefined>;
  /** Resolves once every server started or failed; never rejects. */
  settled(): Promise<void>;
}

const PREFIX = "mcp__";
const SCOPE_KIND: Record<ServerScope, SourceKind> = { user: "user", project: "project", flag: "cli", plugin: "plugin" };

type Declared = McpPromptInfo["arguments"];

function hint(declared: Declared): string {
  return declared.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

/**
 * The arguments typed after `/mcp__server__prompt`, for the prompt's declared ones: `name=value`
 * words go to that argument, the other words (quotes keep "two words" one) fill the rest in
 * order, the last taking whatever is left. Throws, listing them, when a required one is missing.
 */
export function promptArguments(command: string, text: string, declared: Declared): Record<string, string> {
  const names = new Set(declared.map((a) => a.name));
  const result: Record<string, string> = {};
  const words: string[] = [];
  for (const word of splitArgs(text)) {
    const pair = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(word);
    if (pair && names.has(pair[1]!)) result[pair[1]!] = pair[2]!;
    else words.push(word);
  }
  const open = declared.filter((a) => result[a.name] === undefined);
  open.forEach((argument, index) => {
    if (index >= words.length) return;
    result[argument.name] = index === open.length - 1 ? words.slice(index).join(" ") : words[index]!;
  });
  const missing = declared.filter((a) => a.required && result[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) {
    const first = declared[0]!.name;
    throw new OmpError(
      `/${command}: missing ${missing.length === 1 ? "the required argument" : "the required arguments"} ${missing.join(", ")}. ` +
        `Its arguments: ${hint(declared)}; give them in that order, or as name=value (${first}="two words").`,
      { exitCode: EXIT_USAGE },
    );
  }
  return result;
}

/** A prompts/get answer as the user turn: its messages' blocks in order, adjacent texts joined. */
function promptContent(messages: { content: unknown }[]): (TextContent | ImageContent)[] {
  const parts: (TextContent | ImageContent)[] = [];
  for (const message of messages) {
    const part = contentBlock(message.content as McpContent);
    const last = parts[parts.length - 1];
    if (part.type === "text" && last?.type === "text") last.text = `${last.text}\n\n${part.text}`;
    else parts.push(part);
  }
  return parts;
}

/**
 * MCP server prompts as slash commands (`/mcp__<server>__<prompt> args`), one source of the
 * command registry like the markdown commands: completed, listed and invoked the same way in
 * every mode. Arguments beyond what a prompt declares are appended to its text.
 */
export class McpPromptCommands implements CommandProvider {
  constructor(private readonly host: PromptHost) {}

  commands(): ProvidedCommand[] {
    return this.host.servers().flatMap((server) => server.prompts.map((prompt) => this.command(server, prompt)));
  }

  private command(server: PromptServer, prompt: McpPromptInfo): ProvidedCommand {
    const name = mcpToolName(server.name, prompt.name);
    const argumentHint = hint(prompt.arguments);
    return {
      name,
      description: prompt.description || `prompt ${prompt.name} of the MCP server ${server.name}`,
      ...(argumentHint ? { argumentHint } : {}),
      path: server.source,
      source: { kind: SCOPE_KIND[server.scope], root: server.source, trusted: true, label: server.source },
      detail: `prompt "${prompt.name}" of MCP server "${server.name}"`,
      expand: async (args, signal) => {
        const values = promptArguments(name, args, prompt.arguments);
        const connection = await this.host.connection(server.name);
        if (!connection) throw new OmpError(`/${name}: the MCP server "${server.name}" is not running (/mcp or omp mcp list shows why)`);
        const result = await connection.request((client) => client.getPrompt({ name: prompt.name, arguments: values }, signal ? { signal } : undefined), signal);
        const content = promptContent(result.messages);
        if (prompt.arguments.length === 0 && args.trim() !== "") content.push({ type: "text", text: args.trim() });
        return content;
      },
    };
  }

  owns(name: string): boolean {
    return name.toLowerCase().startsWith(PREFIX);
  }

  settled(): Promise<void> {
    return this.host.settled();
  }

  unknown(name: string): string {
    const known = this.commands().map((c) => `/${c.name}`);
    return `no MCP prompt /${name}; the servers offer: ${known.join(", ") || "none"}`;
  }
}
