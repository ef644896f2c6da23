import { endStartUp } from "../core/agent/start-up-jit.ts";
import { installCrashHandlers, reportCommandError } from "./shared/command-error.ts";

/**
 * The whole CLI (`omp --version` is answered before this module loads, by the entry point
 * embed/build.ts writes). The agent's usual arguments, and grep's and find's, skip commander, whose
 * loading and command tree cost 5–15 ms before the first request or search; everything else goes
 * through the commander program.
 */
export async function main(argv: string[]): Promise<void> {
  installCrashHandlers();
  try {
    if (argv[0] === "__sqlite-read") {
      // The child a SQLite read runs in (SQLITE_CHILD_COMMAND, core/documents/sqlite-process.ts): killed at its
      // time limit. The name is written out here so the module loads only in that child.
      const { serveSqliteRead } = await import("../core/documents/sqlite-process.ts");
      process.stdout.write(await serveSqliteRead(await Bun.stdin.text()));
      return;
    }
    if (argv[0] === "__browser-driver") {
      // The browser tool's child (core/tools/browser/host.ts): Chromium and the model's page code, in the sandbox.
      endStartUp();
      const { serveBrowserDriver } = await import("../core/tools/browser/driver.ts");
      await serveBrowserDriver(argv.slice(1));
      return;
    }
    if (argv[0] === "grep" || argv[0] === "find") {
      const status = await (await import("./commands/search-argv.ts")).runSearchArgv(argv[0], argv.slice(1));
      if (status !== undefined) {
        process.exitCode = status;
        return;
      }
    } else {
      const agentArgv = (await import("./options/agent-argv.ts")).parseAgentArgv(argv);
      if (agentArgv) {
        const { runAgent } = await import("./commands/agent.ts");
        process.exitCode = await runAgent(agentArgv.messages, agentArgv.flags);
        return;
      }
    }
    // A command of its own (a server among them) is past the agent's start-up; `omp acp` is the
    // agent's acp mode, which keeps the start-up policy as `--mode acp` does.
    if (argv[0] !== "acp") endStartUp();
    const { runProgram } = await import("./program/program.ts");
    // `omp help [command]` reads as git and cargo read it; the one-word prompt "help" still works after -p.
    process.exitCode = await runProgram(argv[0] === "help" ? [...argv.slice(1), "--help"] : argv);
  } catch (error) {
    process.exitCode = reportCommandError(error);
  }
}
