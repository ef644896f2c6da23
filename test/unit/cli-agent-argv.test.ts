// The agent's argv parser against commander: whatever it accepts, runAgent must get exactly what
// the commander program would have given it; everything unusual is left to commander.
import { describe, expect, test } from "bun:test";
import type { Command } from "commander";
import { type AgentArgv, SUBCOMMANDS, parseAgentArgv } from "../../cli/options/agent-argv.ts";
import { describeProgram } from "../../cli/program/program.ts";
import { commanderAccepts } from "../support/commander-parse.ts";

/** What the commander program does with argv: the agent's arguments, or "other" (help, version, an error, a subcommand). */
async function commanderView(argv: string[]): Promise<AgentArgv | "other"> {
  const program = describeProgram({ code: 0 });
  let received: AgentArgv | "other" = "other";
  const quiet = (command: Command) => {
    command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    for (const sub of command.commands) {
      sub.action(() => {});
      quiet(sub);
    }
  };
  quiet(program);
  program.action((messages, flags) => {
    received = { messages, flags };
  });
  return (await commanderAccepts(program, argv)) ? received : "other";
}

const ACCEPTED: string[][] = [
  [],
  ["hi"],
  ["fix", "the", "bug"],
  ["-p", "hi"],
  ["--print", "hi"],
  ["-p", "hi", "--no-session", "--max-turns", "0"],
  ["hi", "-p"],
  ["-p", "hi", "-m", "x", "there"],
  ["-m", "anthropic/claude-sonnet-4-5", "hi"],
  ["-mfoo", "hi"],
  ["-m=foo"],
  ["--model=foo", "hi"],
  ["--model=", "hi"],
  ["--model", "a", "--model", "b"],
  ["-m", "-p"],
  ["-m", "--", "hi"],
  ["-pc"],
  ["-cp", "x"],
  ["-pmfoo"],
  ["-pm", "foo", "bar"],
  ["-r"],
  ["-r", "abc"],
  ["-r", "-p"],
  ["-r", "--", "x"],
  ["-rabc"],
  ["-pr"],
  ["-pr", "abc"],
  ["-cpr", "abc", "more"],
  ["-r", "-"],
  ["--resume=abc"],
  ["--resume", "abc", "hi"],
  ["--resume=", "hi"],
  ["-c", "-r", "x"],
  ["--no-session"],
  ["--no-tools"],
  ["--tools", "read,grep"],
  ["--tools", "read", "--no-tools"],
  ["--no-tools", "--tools", "read"],
  ["--config", "a.yml"],
  ["--config", "a.yml", "--config=b.yml", "hi"],
  ["--max-time", "90"],
  ["--max-time", "1.5"],
  ["--max-time=2e1"],
  ["--max-turns", "3", "--max-turns", "007"],
  ["--", "-p", "--help"],
  ["-p", "--", "-v"],
  ["hi", "--", "--model", "x"],
  ["hi", "grep"],
  ["@file.ts", "explain"],
  ["-"],
  ["", "x"],
  ["--mode", "json", "-p", "hi"],
  ["--mode=rpc"],
  ["--api-key", "sk-1", "--thinking", "high", "--approval-mode", "yolo"],
  ["--session-dir", "/tmp/s", "--system-prompt", "be brief", "--append-system-prompt", "more"],
  ["--list-models"],
];

const LEFT_TO_COMMANDER: string[][] = [
  // help and version
  ["--help"],
  ["-h"],
  ["-p", "hi", "-h"],
  ["--help", "-p"],
  ["-ph"],
  ["-v", "-p", "hi"],
  ["--version", "extra"],
  ["-V", "x"],
  ["-pv"],
  // subcommands, also after options or --
  ["grep", "x"],
  ["find", "*.ts"],
  ["doctor"],
  ["update", "--check"],
  ["config", "path"],
  ["auth", "list"],
  ["help"],
  ["-p", "grep", "x"],
  ["--", "doctor"],
  // unknown options
  ["-x"],
  ["--no-such-flag"],
  ["hi", "--no-such-flag"],
  ["-5"],
  ["-pcx"],
  ["--print=yes"],
  ["--no-tools=x"],
  ["--no-session=x"],
  ["--=x"],
  ["-p-"],
  ["-p=x"],
  // missing and invalid values
  ["-m"],
  ["--model"],
  ["-p", "--config"],
  ["--max-turns"],
  ["-pm"],
  ["--max-turns", "abc", "-p", "hi"],
  ["--max-time", "0"],
  ["--max-time", "-p", "hi"],
  ["--max-turns", "-1"],
  ["--max-turns=1.5"],
  ["--max-time", "abc"],
  // a negative number where commander would take it as the optional value
  ["-r", "-5"],
];

describe("parseAgentArgv", () => {
  test.each(ACCEPTED.map((argv) => [JSON.stringify(argv), argv] as const))("%s: as commander gives it", async (_, argv) => {
    const parsed = parseAgentArgv(argv);
    expect(parsed).toBeDefined();
    expect(parsed).toStrictEqual((await commanderView(argv)) as AgentArgv);
  });

  test.each(LEFT_TO_COMMANDER.map((argv) => [JSON.stringify(argv), argv] as const))("%s: left to commander", (_, argv) => {
    expect(parseAgentArgv(argv)).toBeUndefined();
  });

  test("knows every command of the program", () => {
    const commands = describeProgram({ code: 0 }).commands.map((command) => command.name());
    expect(commands.filter((name) => !SUBCOMMANDS.has(name))).toEqual([]);
  });

  test("a program built for one command has that command, whole, and nothing else", () => {
    const full = describeProgram({ code: 0 });
    const shape = (command: Command): unknown => ({
      name: command.name(),
      options: command.options.map((option) => option.flags),
      commands: command.commands.map(shape),
    });
    for (const name of SUBCOMMANDS) {
      if (name === "help") continue;
      const only = describeProgram({ code: 0 }, name);
      expect(only.commands).toHaveLength(1);
      expect([only.commands[0]!.name(), ...only.commands[0]!.aliases()]).toContain(name);
      expect(shape(only.commands[0]!)).toEqual(shape(full.commands.find((command) => command.name() === only.commands[0]!.name())!));
    }
  });

  test("commander's defaults for the negated options", async () => {
    expect(await commanderView([])).toStrictEqual({ messages: [], flags: { session: true } });
    expect(parseAgentArgv([])).toStrictEqual({ messages: [], flags: { session: true } });
  });
});
