// grep's and find's argv parser against commander: whatever it accepts, the command must get exactly
// what the commander program would have given it; everything unusual is left to commander.
import { describe, expect, test } from "bun:test";
import type { Command } from "commander";
import { describeProgram } from "../../cli/program/program.ts";
import { type SearchArgv, parseSearchArgv } from "../../cli/commands/search-argv.ts";
import { commanderAccepts } from "../support/commander-parse.ts";

async function commanderView(argv: string[]): Promise<SearchArgv | "other"> {
  const program = describeProgram({ code: 0 }, argv[0]);
  let received: SearchArgv | "other" = "other";
  program.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (command.name() === "grep") command.action((pattern, paths, flags) => void (received = { command: "grep", pattern, paths, flags }));
    if (command.name() === "find") command.action((glob, path, flags) => void (received = { command: "find", glob, path, flags }));
  }
  return (await commanderAccepts(program, argv)) ? received : "other";
}

const ACCEPTED: string[][] = [
  ["grep", "x"],
  ["grep", "x", "src", "lib"],
  ["grep", "-i", "x"],
  ["grep", "x", "-i", "dir"],
  ["grep", "-iF", "a.b"],
  ["grep", "-F", "--", "-x"],
  ["grep", "--", "--help"],
  ["grep", "-g", "*.ts", "-g", "!*.d.ts", "x"],
  ["grep", "-g", "-weird", "x"],
  ["grep", "--glob=*.rs", "-tts", "--type", "rust", "x"],
  ["grep", "-A", "2", "-B3", "-C4", "x"],
  ["grep", "--context", "5", "--max-count=1", "x"],
  ["grep", "-lc", "x"],
  ["grep", "-M", "120", "-H", "x"],
  ["grep", "-I", "x"],
  ["grep", "--no-filename", "--no-ignore", "--hidden", "x"],
  ["grep", "-j", "4", "--sort", "none", "x"],
  ["grep", "--sort=path", "--json", "x"],
  ["grep", "-S", "-U", "x", "-"],
  ["grep", ""],
  ["find", "*.ts"],
  ["find", "*.ts", "src"],
  ["find", "-t", "f", "--type", "d", "*"],
  ["find", "*.rs", "--hidden", "--no-ignore", "-m", "10"],
  ["find", "--newest", "-L", "--json", "*"],
  ["find", "--sort", "none", "*.ts", "dir"],
  ["find", "--", "-odd*"],
];

const LEFT_TO_COMMANDER: string[][] = [
  ["grep"],
  ["grep", "-h"],
  ["grep", "--help"],
  ["grep", "x", "--help"],
  ["grep", "-i"],
  ["grep", "--no-such", "x"],
  ["grep", "-X", "x"],
  ["grep", "-5", "x"],
  ["grep", "-A", "x"],
  ["grep", "-A", "-1", "x"],
  ["grep", "-A"],
  ["grep", "--sort", "random", "x"],
  ["grep", "--json=yes", "x"],
  ["grep", "-ix"],
  ["grep", "-C=4", "x"],
  ["find"],
  ["find", "a", "b", "c"],
  ["find", "--help"],
  ["find", "-m", "many", "*"],
  ["find", "-x", "*"],
];

describe("parseSearchArgv", () => {
  test.each(ACCEPTED.map((argv) => [JSON.stringify(argv), argv] as const))("%s: as commander gives it", async (_, argv) => {
    const parsed = parseSearchArgv(argv[0]!, argv.slice(1));
    expect(parsed).toBeDefined();
    expect(parsed).toStrictEqual((await commanderView(argv)) as SearchArgv);
  });

  test.each(LEFT_TO_COMMANDER.map((argv) => [JSON.stringify(argv), argv] as const))("%s: left to commander", (_, argv) => {
    expect(parseSearchArgv(argv[0]!, argv.slice(1))).toBeUndefined();
  });
});
