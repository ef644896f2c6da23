import type { Command } from "commander";
import type { Run } from "../options/options.ts";

/** `omp protocol`: the session protocol that `--mode rpc` speaks, for programs that drive omp (core/protocol/). */
export function describeProtocol(program: Command, run: Run): void {
  const protocol = program.command("protocol").description("the session protocol --mode rpc speaks: its JSON Schema and a TypeScript client");
  protocol
    .command("schema")
    .description("print the protocol's JSON Schema (commands, events, results, typed errors, its version)")
    .action(run(async () => (await import("../commands/protocol.ts")).runProtocolSchema()));
  protocol
    .command("client")
    .description("print a TypeScript client generated from that schema: a typed method per command, typed events (Node or Bun)")
    .action(run(async () => (await import("../commands/protocol.ts")).runProtocolClient()));
}
