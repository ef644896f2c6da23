import type { Command } from "commander";
import type { Run } from "../options/options.ts";
import type { SshAddFlags } from "../commands/ssh.ts";

/** `omp ssh add|list|remove`: the ssh tool's hosts in .omp/ssh.json and ~/.omp/agent/ssh.json (ssh.ts). */
export function describeSsh(program: Command, run: Run): void {
  const ssh = program.command("ssh").description("the hosts the ssh tool may run commands on (.omp/ssh.json, ~/.omp/agent/ssh.json)");
  const load = () => import("../commands/ssh.ts");
  ssh
    .command("add <name>")
    .description("add a host; --host may be an address or an alias of ~/.ssh/config (its User, Port and IdentityFile apply)")
    .requiredOption("--host <address>", "the address or ~/.ssh/config alias ssh connects to")
    .option("--user <user>", "the remote user")
    .option("--port <port>", "the ssh port (1-65535)")
    .option("--key <path>", "the private key file (its path only: omp never reads it)")
    .option("--desc <text>", "what the host is, for the model")
    .option("--compat", "the host's shell is a Windows compat shell")
    .option("--scope <scope>", "project (.omp/ssh.json, the default) or user (~/.omp/agent/ssh.json)")
    .action(run(async (name: string, options: SshAddFlags) => (await load()).sshAdd(name, options)));
  ssh
    .command("list", { isDefault: true })
    .description("the hosts of the project and of the user")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await load()).sshList(options)));
  ssh
    .command("remove <name>")
    .alias("rm")
    .description("remove a host")
    .option("--scope <scope>", "project (the default) or user")
    .action(run(async (name: string, options: { scope?: string }) => (await load()).sshRemove(name, options)));
}
