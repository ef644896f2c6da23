/**
 * The whole CLI (`omp --version` is answered before this module loads, by the entry point
 * embed/build.ts writes). The agent's usual arguments skip commander, whose loading and command
 * tree cost 5–7 ms before the first request; everything else goes through the commander program.
 */
export async function main(argv: string[]): Promise<void> {
  const [{ parseAgentArgv }, { installCrashHandlers, reportCommandError }] = await Promise.all([import("./agent-argv.ts"), import("./command-error.ts")]);
  installCrashHandlers();
  try {
    const agentArgv = parseAgentArgv(argv);
    if (agentArgv) {
      const { runAgent } = await import("./agent.ts");
      process.exitCode = await runAgent(agentArgv.messages, agentArgv.flags);
      return;
    }
    const { runProgram } = await import("./program.ts");
    // `omp help [command]` reads as git and cargo read it; the one-word prompt "help" still works after -p.
    process.exitCode = await runProgram(argv[0] === "help" ? [...argv.slice(1), "--help"] : argv);
  } catch (error) {
    process.exitCode = reportCommandError(error);
  }
}
