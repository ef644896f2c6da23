// Provided commands (MCP servers' prompts) beside the file-based ones: the first of a name wins,
// whatever its case; a markdown or extension command's name stays theirs; the rest are listed as
// shadowed by what took the name.
import { describe, expect, test } from "bun:test";
import { type CommandProvider, type ProvidedCommand, resolveProvided } from "../../../core/extensions/provided.ts";

function command(name: string, detail: string): ProvidedCommand {
  return {
    name,
    description: "",
    path: "~/.omp/agent/mcp.json",
    source: { kind: "user", root: "", trusted: true, label: "mcp.json" },
    detail,
    expand: async () => [{ type: "text", text: name }],
  };
}

function provider(commands: ProvidedCommand[]): CommandProvider {
  return { commands: () => commands, owns: (name) => name.startsWith("mcp__"), settled: async () => {}, unknown: (name) => `no ${name}` };
}

describe("provided commands", () => {
  test("first wins by name, case aside; a file command's name is not taken; the others are shadowed with why", () => {
    const a = provider([command("mcp__a__b__c", 'prompt "b__c" of MCP server "a"'), command("mcp__a__review", 'prompt "review" of MCP server "a"')]);
    const b = provider([command("mcp__a__b__C", 'prompt "C" of MCP server "a__b"'), command("mcp__b__fix", 'prompt "fix" of MCP server "b"')]);
    const { commands, shadowed } = resolveProvided([a, b], new Map([["mcp__a__review", "~/.claude/commands/mcp__a__review.md"]]));
    expect(commands.map((c) => c.name)).toEqual(["mcp__a__b__c", "mcp__b__fix"]);
    expect(shadowed.map((e) => [e.name, e.status, e.reason])).toEqual([
      ["mcp__a__review", "shadowed", "shadowed by ~/.claude/commands/mcp__a__review.md"],
      ["mcp__a__b__C", "shadowed", 'shadowed by prompt "b__c" of MCP server "a"'],
    ]);
    expect(shadowed[1]).toMatchObject({ kind: "command", path: "~/.omp/agent/mcp.json", detail: 'prompt "C" of MCP server "a__b"' });
  });
});
