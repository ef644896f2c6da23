import { Command, CommanderError } from "commander";
import { VERSION } from "../core/version.ts";
import type { FindFlags } from "./find.ts";
import type { GrepFlags } from "./grep.ts";
import type { AgentFlags } from "./agent.ts";
import type { UpdateFlags } from "./update.ts";
import type { TrustFlags } from "./trust.ts";
import { writeFdQuietly } from "./write.ts";
import { reportCommandError } from "./command-error.ts";
import { EXIT_USAGE } from "../core/errors/exit-codes.ts";
import { AGENT_OPTIONS } from "./agent-options.ts";
import { collect } from "./option-values.ts";
import { forCommander } from "./options.ts";
import type { OptionSpec } from "./option-parser.ts";
import { FIND_OPTIONS, GREP_OPTIONS } from "./search-options.ts";
import { describePluginCommands } from "./plugin-commands.ts";
import { SUBCOMMANDS } from "./agent-argv.ts";

export type Status = { code: number };

/** Registers options that are also parsed without commander (option-parser.ts), from their one table. */
function addOptions(command: Command, options: readonly OptionSpec[]): Command {
  for (const option of options) {
    if (option.repeatable) command.option(option.flags, option.description, collect);
    else if (option.parse) command.option(option.flags, option.description, forCommander(option.parse));
    else command.option(option.flags, option.description);
  }
  return command;
}

/**
 * The whole command tree (release/completions.ts walks it to write the shell completions), or with
 * `only`, the root and that one command: building every command and the agent's options costs
 * `omp grep` ~15 ms of its start-up, more than the search of a small tree.
 */
export function describeProgram(status: Status, only?: string): Command {
  const wanted = (name: string) => only === undefined || only === name;
  // Each command module is imported only when its command runs and returns the exit status.
  const run =
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
      .action(run(async (messages: string[], options: AgentFlags) => (await import("./agent.ts")).runAgent(messages, options)));
    addOptions(program, AGENT_OPTIONS);
  }

  if (wanted("grep")) {
    const grep = program
      .command("grep")
      .description("search file contents with ripgrep's engine (output as `rg -n`)")
      .argument("<pattern>", "regular expression (or a literal with -F)")
      .argument("[paths...]", "files or directories to search (default: the current directory)");
    addOptions(grep, GREP_OPTIONS).action(
      run(async (pattern: string, paths: string[], options: GrepFlags) => (await import("./grep.ts")).runGrep(pattern, paths, options)),
    );
  }

  if (wanted("find")) {
    const find = program
      .command("find")
      .description("list paths matching a glob, respecting .gitignore")
      .argument("<glob>", "glob such as '*.ts' or 'src/**/*.rs'")
      .argument("[path]", "directory to search (default: the current directory)");
    addOptions(find, FIND_OPTIONS).action(
      run(async (glob: string, path: string | undefined, options: FindFlags) => (await import("./find.ts")).runFind(glob, path, options)),
    );
  }

  if (wanted("doctor")) {
    program
      .command("doctor")
      .description("check this installation: version, platform, native addon, cache, SQLite")
      .option("--json", "print the report as JSON")
      .option("--repair", "verify every cached native addon by sha256 and re-extract damaged ones before loading")
      .action(run(async (options: { json?: boolean; repair?: boolean }) => (await import("./doctor.ts")).runDoctor(options)));
  }

  if (wanted("update")) {
    program
      .command("update")
      .description("update this omp to the latest release of its channel, verified and atomically")
      .option("--check", "only check: exit 0 when up to date, 10 when an update is available")
      .option("--version <version>", "install this version (a downgrade needs --force)")
      .option("--channel <channel>", "stable or canary; remembered in the config")
      .option("--from <file|url>", "install from an offline bundle, a release archive or a binary (with SHA256SUMS and .sig beside it)")
      .option("--force", "reinstall the same version, or allow a downgrade")
      .addHelpText(
        "after",
        "\nExit status: 0 done or up to date, 1 failed (nothing changed), 2 bad usage, 3 installed by a package manager\n" +
          "(use its command), 10 update available (--check).\nOMP_UPDATE_URL sets the release server (a mirror); HTTPS_PROXY, HTTP_PROXY and NO_PROXY apply.",
      )
      .action(run(async (options: UpdateFlags) => (await import("./update.ts")).runUpdateCommand(options)));
  }

  if (wanted("config")) {
    const config = program.command("config").description("show and change settings (~/.omp/agent/config.yml)");
    config
      .command("list")
      .description("every setting with its effective value and where it comes from")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./config.ts")).runConfigList(options)));
    config
      .command("get")
      .description("print the effective value of a setting (exit 1 when unset)")
      .argument("<key>", "dotted key such as compaction.enabled")
      .option("--json", "print JSON")
      .action(run(async (key: string, options: { json?: boolean }) => (await import("./config.ts")).runConfigGet(key, options)));
    config
      .command("set")
      .description("write a setting to the global config.yml")
      .argument("<key>", "dotted key such as compaction.enabled")
      .argument("<value...>", "the value; lists as JSON or comma-separated")
      .option("--json", "print JSON")
      .action(
        run(async (key: string, value: string[], options: { json?: boolean }) => (await import("./config.ts")).runConfigSet(key, value, options)),
      );
    config
      .command("unset")
      .description("remove a setting from config.yml, so its default applies again")
      .argument("<key>", "dotted key, e.g. retry.maxRetries, or a whole group")
      .option("--json", "machine-readable output")
      .action(run(async (key: string, options: { json?: boolean }) => (await import("./config.ts")).runConfigUnset(key, options)));
    config
      .command("path")
      .description("print where omp keeps its files")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./config.ts")).runConfigPath(options)));
  }

  if (wanted("extensions")) {
    program
      .command("extensions")
      .description("list the skills and slash commands omp loads here, with their files and why any were skipped")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./extensions.ts")).runExtensions(options)));
  }

  if (wanted("auth")) {
    const auth = program.command("auth").description("API keys and subscription logins in ~/.omp/agent/agent.db");
    auth
      .command("add")
      .description("store an API key for a provider (read from stdin unless --key is given)")
      .argument("<provider>", "provider id such as anthropic, openai or a models.yml provider")
      .option("--key <key>", "the key (prefer stdin: arguments end up in shell history)")
      .action(run(async (provider: string, options: { key?: string }) => (await import("./auth.ts")).runAuthAdd(provider, options)));
    auth
      .command("list")
      .description("list stored keys, masked")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./auth.ts")).runAuthList(options)));
    auth
      .command("remove")
      .description("stop using the stored keys of a provider")
      .argument("<provider>", "provider id")
      .action(run(async (provider: string) => (await import("./auth.ts")).runAuthRemove(provider)));
    auth
      .command("login")
      .description("log in with a subscription: anthropic (Claude Pro/Max), openai-codex (ChatGPT), github-copilot, google-gemini-cli")
      .argument("[provider]", "which login (a numbered pick on a terminal when omitted)")
      .action(run(async (provider: string | undefined) => (await import("./auth-login.ts")).runAuthLogin(provider)));
    auth
      .command("logout")
      .description("log out of a provider's subscription logins (all of them when omitted); their tokens are erased")
      .argument("[provider]", "provider id")
      .action(run(async (provider: string | undefined) => (await import("./auth-login.ts")).runAuthLogout(provider)));
  }

  if (wanted("acp")) {
    program
      .command("acp")
      .description("serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim) and ACP clients")
      .option("-m, --model <model>", "model: provider/id, an id, or a fuzzy name; :level sets thinking")
      .option("--approval-mode <mode>", "always-ask, write or yolo: which tool calls ask the editor")
      .option("--config <file>", "extra config file over the others; repeatable", collect)
      .option("--session-dir <dir>", "where sessions are stored")
      .option("--trust", "trust the sessions' folders for this run")
      .action(run(async (options: AgentFlags) => (await import("./modes/acp.ts")).runAcp(options)));
  }

  if (wanted("models")) {
    program
      .command("models")
      .description("what each provider with a key serves now, against omp's catalog (new and retired models)")
      .option("--refresh", "ask the providers again instead of using the lists cached today")
      .option("--json", "machine-readable output")
      .action(run(async (options: { refresh?: boolean; json?: boolean }) => (await import("./models.ts")).runModels(options)));
  }

  if (wanted("auth-gateway")) {
    const gateway = program
      .command("auth-gateway")
      .description("serve omp's models and accounts to OpenAI and Anthropic clients (Claude Code, Codex, the SDKs) over HTTP");
    gateway
      .command("serve")
      .description("run the gateway: /v1/chat/completions, /v1/responses, /v1/messages, /v1/models, /v1/usage, /metrics, /healthz")
      .option("--bind <host:port>", "address to listen on (default 127.0.0.1:4000)")
      .option("--public", "allow a --bind address other machines can reach")
      .option("--no-auth", "accept requests without the token (loopback addresses only)")
      .option("--allow-origin <origin>", "let web pages from this origin call (refused by default); repeatable", collect)
      .option("--allow-host <name>", "accept this Host name besides localhost and IP addresses; repeatable", collect)
      .option("--max-body <size>", "largest request body, such as 8MB (default)")
      .option("--connect-timeout <seconds>", "wait for the provider's response headers (default 30)")
      .option("--first-byte-timeout <seconds>", "wait for the provider's first event (default 300)")
      .option("--idle-timeout <seconds>", "wait between the provider's events (default 300)")
      .action(run(async (options: import("./auth-gateway.ts").ServeFlags) => (await import("./auth-gateway.ts")).runGatewayServe(options)));
    gateway
      .command("token")
      .description("print the token clients send (Bearer or x-api-key), creating ~/.omp/auth-gateway.token on first use")
      .option("--regenerate", "replace the token; the old one stops working")
      .option("--json", "print JSON")
      .action(run(async (options: { regenerate?: boolean; json?: boolean }) => (await import("./auth-gateway.ts")).runGatewayToken(options)));
    gateway
      .command("status")
      .description("whether a gateway answers at the address, and which providers and models it serves")
      .option("--bind <host:port>", "address to look at (default 127.0.0.1:4000)")
      .option("--json", "print JSON")
      .action(run(async (options: { bind?: string; json?: boolean }) => (await import("./auth-gateway.ts")).runGatewayStatus(options)));
    gateway
      .command("check")
      .description("check each provider's credentials; --strict also sends each a one-token request (spends quota)")
      .option("--strict", "send a tiny request per credential")
      .option("--json", "print JSON")
      .action(run(async (options: { strict?: boolean; json?: boolean }) => (await import("./auth-gateway.ts")).runGatewayCheck(options)));
  }

  if (wanted("trust")) {
    program
      .command("trust")
      .description("trust a project folder: its .env, config and models files may then run commands and redirect requests")
      .argument("[dir]", "the folder (default: the current one); everything under it is covered")
      .option("--list", "list the folders decided on")
      .option("--revoke", "forget the decision for the folder")
      .option("--deny", "remember the folder as untrusted (the interactive mode stops asking)")
      .option("--json", "with --list: print JSON")
      .action(run(async (dir: string | undefined, options: TrustFlags) => (await import("./trust.ts")).runTrust(dir, options)));
  }

  if (wanted("plugin")) {
    describePluginCommands(program, run);
  }

  if (wanted("auth-broker")) {
    const broker = program.command("auth-broker").description("keep credentials in one place and serve them to omp on other machines");
    broker
      .command("serve")
      .description("serve this host's vault to omp clients; refreshes logins in the background")
      .option("-b, --bind <host:port>", "where to listen", "127.0.0.1:8765")
      .option("--public", "allow a --bind address other machines can reach (needs --tls-cert/--tls-key or --insecure-http)")
      .option("--tls-cert <file>", "serve HTTPS with this PEM certificate (with --tls-key)")
      .option("--tls-key <file>", "the certificate's PEM private key")
      .option("--insecure-http", "serve plain HTTP on a public address (credentials cross the network readable)")
      .option("--allow-host <name>", "accept this Host name besides localhost and IP addresses; repeatable", collect)
      .action(run(async (options: import("./auth-broker.ts").BrokerServeFlags) => (await import("./auth-broker.ts")).runBrokerServe(options)));
    broker
      .command("token")
      .description("print the bearer token clients need (~/.omp/auth-broker.token)")
      .option("--regenerate", "make a new token (clients must be given it)")
      .option("--json", "print JSON")
      .action(run(async (options: { regenerate?: boolean; json?: boolean }) => (await import("./auth-broker.ts")).runBrokerToken(options)));
    broker
      .command("status")
      .description("ping the broker OMP_AUTH_BROKER_URL (or auth.broker.url) names; shows usage limits it knows")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./auth-broker.ts")).runBrokerStatus(options)));
    broker
      .command("list")
      .description("the subscription logins omp knows")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./auth-broker.ts")).runBrokerList(options)));
    broker
      .command("login")
      .description("log in on this host (the broker's vault keeps the tokens); --via logs in for a remote broker through ssh")
      .argument("[provider]", "anthropic, openai-codex, github-copilot or google-gemini-cli")
      .option("--via <user@host[:port]>", "run the login on that host over ssh, its callback port tunnelled to this machine's browser (OMP_SSH_OPTIONS adds ssh arguments)")
      .action(
        run(async (provider: string | undefined, options: { via?: string }) =>
          options.via ? (await import("./auth-broker.ts")).runBrokerLoginVia(provider, options.via) : (await import("./auth-login.ts")).runAuthLogin(provider, { local: true }),
        ),
      );
    broker
      .command("logout")
      .description("log out of a provider's logins in this host's vault")
      .argument("[provider]", "provider id")
      .action(run(async (provider: string | undefined) => (await import("./auth-login.ts")).runAuthLogout(provider, { local: true })));
    broker
      .command("import")
      .description("import CLIProxyAPI credential files into this host's vault")
      .argument("<path>", "a credential .json file or a directory of them")
      .option("--provider <id>", "the provider, when the files' type is missing or unknown")
      .option("--include-disabled", "also import credentials marked disabled")
      .option("--dry-run", "only say what would be imported")
      .option("--json", "print JSON")
      .action(run(async (path: string, options: { provider?: string; includeDisabled?: boolean; dryRun?: boolean; json?: boolean }) => (await import("./auth-broker.ts")).runBrokerImport(path, options)));
    broker
      .command("migrate")
      .description("upload this machine's stored credentials to the configured broker")
      .option("--from-local", "from this machine's vault (required)")
      .option("--include-oauth", "also upload subscription logins (API keys only by default)")
      .option("--dry-run", "only say what would be uploaded")
      .option("--json", "print JSON")
      .action(run(async (options: { fromLocal?: boolean; includeOauth?: boolean; dryRun?: boolean; json?: boolean }) => (await import("./auth-broker.ts")).runBrokerMigrate(options)));
  }

  if (wanted("mcp")) {
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
        run(async (name: string, target: string, args: string[], options: import("./mcp.ts").McpAddFlags) =>
          (await import("./mcp.ts")).runMcpAdd(name, target, args, options),
        ),
      );
    mcp
      .command("add-json")
      .description("add a server from its JSON entry, as in .mcp.json")
      .argument("<name>", "server name")
      .argument("<json>", 'the entry, e.g. \'{"command":"npx","args":["-y","pkg"]}\'')
      .option("-s, --scope <scope>", "user (default) or project")
      .action(run(async (name: string, json: string, options: { scope?: string }) => (await import("./mcp.ts")).runMcpAddJson(name, json, options)));
    mcp
      .command("list")
      .description("every configured server, connected: status and tool count")
      .option("--json", "print JSON")
      .action(run(async (options: { json?: boolean }) => (await import("./mcp.ts")).runMcpList(options)));
    mcp
      .command("get")
      .description("one server: where it is configured, how it runs, its status and tools")
      .argument("<name>", "server name")
      .option("--json", "print JSON")
      .action(run(async (name: string, options: { json?: boolean }) => (await import("./mcp.ts")).runMcpGet(name, options)));
    mcp
      .command("remove")
      .description("remove a server from the user or project file")
      .argument("<name>", "server name")
      .option("-s, --scope <scope>", "user or project (default: whichever has it)")
      .action(run(async (name: string, options: { scope?: string }) => (await import("./mcp.ts")).runMcpRemove(name, options)));
    mcp
      .command("login")
      .description("log in to a remote (http) server with OAuth; prints the URL to open (OMP_NO_BROWSER=1: print only); with the browser on another machine, paste the address it ended on")
      .argument("<name>", "server name")
      .action(run(async (name: string) => (await import("./mcp.ts")).runMcpLogin(name)));
  }

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
