import type { McpConnection } from "./connection.ts";
import { mcpToolName } from "./names.ts";

/** A server prompt as a slash command (`/mcp__<server>__<prompt> args`). */
export interface McpPromptCommand {
  /** Without the slash. */
  name: string;
  description: string;
  /** Argument names, required ones first as the server lists them. */
  arguments: { name: string; required: boolean }[];
  /** The prompt's messages as the text of a user message. */
  expand(argumentText: string): Promise<string>;
}

/**
 * Arguments as typed after the command: `key=value` pairs, or plain words given to the prompt's
 * arguments in order (the last one takes the rest of the line).
 */
export function promptArguments(text: string, names: readonly string[]): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  const pairs = [...trimmed.matchAll(/([A-Za-z_][\w-]*)=("[^"]*"|\S+)/g)];
  if (pairs.length > 0 && pairs.every(([, key]) => names.includes(key!))) {
    return Object.fromEntries(pairs.map(([, key, value]) => [key!, value!.replace(/^"(.*)"$/, "$1")]));
  }
  const words = trimmed.split(/\s+/);
  const result: Record<string, string> = {};
  names.forEach((name, index) => {
    if (index >= words.length) return;
    result[name] = index === names.length - 1 ? words.slice(index).join(" ") : words[index]!;
  });
  return result;
}

export function promptCommands(connections: McpConnection[]): McpPromptCommand[] {
  return connections.flatMap((connection) =>
    connection.prompts.map((prompt) => ({
      name: mcpToolName(connection.server.name, prompt.name),
      description: prompt.description || `${prompt.name} prompt of the ${connection.server.name} MCP server`,
      arguments: prompt.arguments.map(({ name, required }) => ({ name, required })),
      async expand(argumentText: string) {
        const args = promptArguments(argumentText, prompt.arguments.map((a) => a.name));
        const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
        if (missing.length > 0) throw new Error(`/${this.name} needs ${missing.join(", ")} (give them as words in order, or name=value)`);
        const result = await connection.request((client) => client.getPrompt({ name: prompt.name, arguments: args }));
        return result.messages
          .map((message) => {
            const content = message.content as { type: string; text?: string; resource?: { text?: string; uri?: string } };
            if (content.type === "text") return content.text ?? "";
            if (content.type === "resource") return content.resource?.text ?? `[resource ${content.resource?.uri ?? ""}]`;
            return `[${content.type}]`;
          })
          .join("\n\n");
      },
    })),
  );
}
