import type { Command } from "commander";
import { collect } from "../options/option-values.ts";
import type { Run } from "../options/options.ts";

/** `omp relay …`: the collab relay others share sessions through (relay.ts). */
export function describeRelay(program: Command, run: Run): void {
  const relay = program.command("relay").description("the collab relay: /collab hosts and their guests meet there; it forwards sealed frames it cannot read");
  relay
    .command("serve")
    .description("run the relay: the web guest at /, rooms at /r/<room>?role=host|guest (WebSocket), /healthz")
    .option("--host <address>", "address to listen on (default 127.0.0.1)")
    .option("--port <port>", "port to listen on (default 7475; 0 picks a free one)")
    .option("--token <token>", "hosts must send this token (Authorization: Bearer); prefer --token-file")
    .option("--token-file <path>", "hosts must send the token in this file; made (0600, random) when missing")
    .option("--no-token", "let any host open a room on an address other machines can reach")
    .option("--allow-origin <origin>", "let web pages from this origin connect besides the relay's own; repeatable", collect)
    .option("--allow-host <name>", "accept this Host name (the relay's public name) besides localhost and IP addresses; repeatable", collect)
    .option("--max-rooms <n>", "rooms open at once (default 1000)")
    .option("--max-guests <n>", "guests in one room (default 32)")
    .option("--host-wait <seconds>", "how long guests wait for a host that left (default 600)")
    .option("--idle-timeout <seconds>", "close a connection that answers no ping for this long (default 120, at most 960)")
    .action(run(async (options: import("../commands/relay.ts").RelayServeFlags) => (await import("../commands/relay.ts")).runRelayServe(options)));
}
