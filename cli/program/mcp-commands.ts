import type { Command } from "commander";
import { collect } from "../options/option-values.ts";
import type { Run } from "../options/options.ts";

/** `omp mcp …`: MCP servers' configuration (mcp.ts). */
export function describeMcp(program: Command, run: Run): void {
  const mcp = program.command("mcp").description("manage MCP servers (~/.omp/agent/mcp.json, .mcp.json)");
  mcp
    .command("add")
    .description("add a server: <name> -- <command> [args…], or --transport http|sse <name> <url>")
    .argument("<name>", "server name (letters, digits, _ . -)")
    .argument("<commandOrUrl>", "the command to run, or the URL with --transport http|sse")
    .argument("[args...]", "arguments of the command (after --)")
    .option("-s, --scope <scope>", "user (~/.omp/agent/mcp.json, default) or project (.mcp.json)")
    .option("-t, --transport <transport>", "stdio (default), http or sse")
    .option("-e, --env <KEY=VALUE>", "environment variable for a stdio server; repeatable", collect)
    .option("-H, --header <header>", '"Name: value" header for an http or sse server; repeatable', collect)
    .action(
      run(async (name: string, target: string, args: string[], options: import("../commands/mcp.ts").McpAddFlags) =>
        (await import("../commands/mcp.ts")).runMcpAdd(name, target, args, options),
      ),
    );
  mcp
    .command("add-json")
    .description("add a server from its JSON entry, as in .mcp.json")
    .argument("<name>", "server name")
    .argument("<json>", 'the entry, e.g. \'{"command":"npx","args":["-y","pkg"]}\'')
    .option("-s, --scope <scope>", "user (default) or project")
    .action(run(async (name: string, json: string, options: { scope?: string }) => (await import("../commands/mcp.ts")).runMcpAddJson(name, json, options)));
  mcp
    .command("list")
    .description("every configured server, connected: status and tool count")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/mcp.ts")).runMcpList(options)));
  mcp
    .command("get")
    .description("one server: where it is configured, how it runs, its status and tools")
    .argument("<name>", "server name")
    .option("--json", "print JSON")
    .action(run(async (name: string, options: { json?: boolean }) => (await import("../commands/mcp.ts")).runMcpGet(name, options)));
  mcp
    .command("remove")
    .description("remove a server from the user or project file")
    .argument("<name>", "server name")
    .option("-s, --scope <scope>", "user or project (default: whichever has it)")
    .action(run(async (name: string, options: { scope?: string }) => (await import("../commands/mcp.ts")).runMcpRemove(name, options)));
  mcp
    .command("login")
    .description("log in to a remote (http) server with OAuth; prints the URL to open (OMP_NO_BROWSER=1: print only); with the browser on another machine, paste the address it ended on")
    .argument("<name>", "server name")
    .action(run(async (name: string) => (await import("../commands/mcp.ts")).runMcpLogin(name)));
}
