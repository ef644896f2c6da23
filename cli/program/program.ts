import { Command, CommanderError } from "commander";
import { VERSION } from "../../core/version.ts";
import type { AgentFlags } from "../options/agent-options.ts";
import { writeFdQuietly } from "../shared/write.ts";
import { reportCommandError } from "../shared/command-error.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { AGENT_OPTIONS } from "../options/agent-options.ts";
import { collect } from "../options/option-values.ts";
import { addOptions, type Run } from "../options/options.ts";
import { describePluginCommands } from "./plugin-commands.ts";
import { describeAuth, describeAuthBroker, describeAuthGateway } from "./auth-commands.ts";
import { describeConfig, describeExtensions, describeModels, describeTrust, describeTtsr } from "./config-commands.ts";
import { describeCompletions, describeDoctor, describeSetup, describeUpdate } from "./install-commands.ts";
import { describeMcp } from "./mcp-commands.ts";
import { describeCommit, describeWorktree } from "./git-commands.ts";
import { describeStats, describeUsage } from "./usage-commands.ts";
import { describeFind, describeGrep } from "./search-commands.ts";
import { SUBCOMMANDS } from "../options/agent-argv.ts";
import { describeSsh } from "./ssh-commands.ts";
import { describeProtocol } from "./protocol-commands.ts";
import { describeJoin } from "./join-commands.ts";
import { describeRelay } from "./relay-commands.ts";

export type Status = { code: number };

/** `omp acp`: the agent served to editors (modes/acp.ts). */
function describeAcp(program: Command, run: Run): void {
  program
    .command("acp")
    .description("serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim) and ACP clients")
    .option("-m, --model <model>", "model: provider/id, an id, or a fuzzy name; :level sets thinking")
    .option("--approval-mode <mode>", "always-ask, write or yolo: which tool calls ask the editor; plan or auto-accept: the mode sessions start in")
    .option("--config <file>", "extra config file over the others; repeatable", collect)
    .option("--profile <name>", "settings profile ~/.omp/agent/profiles/<name>.yml over the global config")
    .option("--session-dir <dir>", "where sessions are stored")
    .option("--trust", "trust the sessions' folders for this run")
    .action(run(async (options: AgentFlags) => (await import("../modes/acp.ts")).runAcp(options)));
}

/** The subcommands in the order help lists them, each described by its concept's module. */
const COMMANDS: readonly (readonly [name: string, describe: (program: Command, run: Run) => void])[] = [
  ["grep", describeGrep],
  ["find", describeFind],
  ["doctor", describeDoctor],
  ["update", describeUpdate],
  ["config", describeConfig],
  ["extensions", describeExtensions],
  ["auth", describeAuth],
  ["acp", describeAcp],
  ["models", describeModels],
  ["usage", describeUsage],
  ["stats", describeStats],
  ["auth-gateway", describeAuthGateway],
  ["trust", describeTrust],
  ["ttsr", describeTtsr],
  ["plugin", describePluginCommands],
  ["auth-broker", describeAuthBroker],
  ["mcp", describeMcp],
  ["commit", describeCommit],
  ["worktree", describeWorktree],
  ["ssh", describeSsh],
  ["join", describeJoin],
  ["relay", describeRelay],
  ["setup", describeSetup],
  ["completions", describeCompletions],
  ["protocol", describeProtocol],
];

/** Other names of commands (the original omp's `wt`), for building only the command that runs. */
const COMMAND_ALIASES: Record<string, string> = { wt: "worktree" };

/**
 * The whole command tree (completions.ts walks it to write the shell completions), or with
 * `only`, the root and that one command: building every command and the agent's options costs
 * `omp grep` ~15 ms of its start-up, more than the search of a small tree.
 */
export function describeProgram(status: Status, only?: string): Command {
  // Each command module is imported only when its command runs and returns the exit status.
  const run: Run =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A) => {
      status.code = await action(...args);
    };

  const program = new Command("omp")
    .description("A coding agent for your terminal.")
    .version(`omp/${VERSION}`, "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => writeFdQuietly(1, text),
      writeErr: (text) => writeFdQuietly(2, text),
      outputError: (text, write) => write(text.replace(/^error: /, "omp: ")),
    });

  // Options after a command are that command's (`omp update --version 1.2.3` is update's --version,
  // not the program's), whichever commands were built.
  program.enablePositionalOptions();
  if (only === undefined) {
    program
      .argument("[messages...]", "the task; @path attaches a file; stdin is read when piped")
      .action(run(async (messages: string[], options: AgentFlags) => (await import("../commands/agent.ts")).runAgent(messages, options)));
    addOptions(program, AGENT_OPTIONS);
  }
  const wanted = only === undefined ? undefined : (COMMAND_ALIASES[only] ?? only);
  for (const [name, describe] of COMMANDS) if (wanted === undefined || wanted === name) describe(program, run);
  return program;
}

/** Runs the CLI and returns the process exit status; nothing below here calls process.exit. */
export async function runProgram(argv: string[]): Promise<number> {
  const status: Status = { code: 0 };
  // `help` lists every command, and a word that is no command gets commander's suggestion.
  const only = argv[0] !== undefined && argv[0] !== "help" && SUBCOMMANDS.has(argv[0]) ? argv[0] : undefined;
  const program = describeProgram(status, only);
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return status.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    return reportCommandError(error);
  }
}
