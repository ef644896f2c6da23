import type { Extensions } from "../../../core/extensions/extensions.ts";
import { extensionsListing } from "../../../core/extensions/listing.ts";
import { textBlock } from "../render/blocks.ts";
import type { SlashCommand } from "./commands.ts";
import type { CommandInfo } from "./completion.ts";
import type { Span } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";

/**
 * The markdown commands, the TypeScript extensions' commands, MCP servers' prompts and skills (`skill:<name>`) as the completion list and /help show them;
 * a command named like a built-in one is left out, since the built-in one runs.
 */
export function extensionCommandInfos(extensions: Extensions, builtins: readonly CommandInfo[]): CommandInfo[] {
  const taken = new Set(builtins.map((b) => b.name));
  return [
    ...extensions.commands.filter((c) => !taken.has(c.name)).map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { args: c.argumentHint } : {}) })),
    ...extensions.codeCommands.filter((c) => !taken.has(c.name) && !extensions.commands.some((m) => m.name === c.name)).map((c) => ({ name: c.name, description: c.description ?? "" })),
    ...extensions.providedCommands.filter((c) => !taken.has(c.name)).map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { args: c.argumentHint } : {}) })),
    ...extensions.skills.map((s) => ({ name: `skill:${s.name}`, description: s.description, args: "[request]" })),
  ];
}

/** /help's sections for the user's own commands and skills; none when there are none. */
export function extensionHelpLines(theme: Theme, extensions: Extensions, builtins: readonly CommandInfo[]): Span[][] {
  const row = (info: CommandInfo): Span[] => [
    { text: `  /${info.name}${info.args ? ` ${info.args}` : ""}`.padEnd(32), style: theme.fg("accent") },
    { text: info.description, style: theme.fg("muted") },
  ];
  const infos = extensionCommandInfos(extensions, builtins);
  const commands = infos.filter((info) => !info.name.startsWith("skill:"));
  const skills = infos.filter((info) => info.name.startsWith("skill:"));
  const lines: Span[][] = [];
  if (commands.length > 0) lines.push([], [{ text: "Your commands", style: theme.fg("accent", "bold") }], ...commands.map(row));
  if (skills.length > 0) lines.push([], [{ text: "Skills", style: theme.fg("accent", "bold") }], ...skills.map(row));
  return lines;
}

/** /extensions: what `omp extensions` prints, in the transcript. */
export const extensionsCommand: SlashCommand = {
  name: "extensions",
  description: "loaded skills, commands, hooks, agents and extensions, and what was skipped",
  run(host) {
    const lines = extensionsListing(host.runtime.extensions);
    host.add(
      textBlock(host.view, (theme) =>
        lines.map((line): Span[] => [
          {
            text: line.text,
            style: line.style === "title" ? theme.fg("accent", "bold") : line.style === "problem" ? theme.fg("warning") : line.style === "dim" ? theme.fg("dim") : "",
          },
        ]),
      ),
    );
  },
};
