import type { Command } from "commander";

/** Parses argv with `program` as the CLI would; false when commander stopped it (help, version, a usage error). */
export async function commanderAccepts(program: Command, argv: string[]): Promise<boolean> {
  try {
    await program.parseAsync(argv, { from: "user" });
    return true;
  } catch (error) {
    if ((error as Error).name !== "CommanderError") throw error;
    return false;
  }
}
