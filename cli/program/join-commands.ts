import type { Command } from "commander";
import type { Run } from "../options/options.ts";

/** `omp join <link>`: a guest of a session shared with /collab (join.ts). */
export function describeJoin(program: Command, run: Run): void {
  program
    .command("join <link>")
    .description("join a session shared with /collab: the link /collab printed (<room>.<key>, host/r/<room>.<key> or https://host/#<room>.<key>)")
    .action(run(async (link: string) => (await import("../commands/join.ts")).runJoin(link)));
}
