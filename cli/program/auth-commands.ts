import type { Command } from "commander";
import { collect } from "../options/option-values.ts";
import type { Run } from "../options/options.ts";

/** `omp auth …`: keys and logins on this machine (auth.ts, auth-login.ts). */
export function describeAuth(program: Command, run: Run): void {
  const auth = program.command("auth").description("API keys and subscription logins in ~/.omp/agent/agent.db");
  auth
    .command("add")
    .description("store an API key for a provider (read from stdin unless --key is given)")
    .argument("<provider>", "provider id such as anthropic, openai or a models.yml provider")
    .option("--key <key>", "the key (prefer stdin: arguments end up in shell history)")
    .action(run(async (provider: string, options: { key?: string }) => (await import("../commands/auth.ts")).runAuthAdd(provider, options)));
  auth
    .command("list")
    .description("list stored keys, masked")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/auth.ts")).runAuthList(options)));
  auth
    .command("remove")
    .description("stop using the stored keys of a provider")
    .argument("<provider>", "provider id")
    .action(run(async (provider: string) => (await import("../commands/auth.ts")).runAuthRemove(provider)));
  auth
    .command("login")
    .description("log in with a subscription: anthropic (Claude Pro/Max), openai-codex (ChatGPT), github-copilot, google-gemini-cli")
    .argument("[provider]", "which login (a numbered pick on a terminal when omitted)")
    .action(run(async (provider: string | undefined) => (await import("../commands/auth-login.ts")).runAuthLogin(provider)));
  auth
    .command("logout")
    .description("log out of a provider's subscription logins (all of them when omitted); their tokens are erased")
    .argument("[provider]", "provider id")
    .action(run(async (provider: string | undefined) => (await import("../commands/auth-login.ts")).runAuthLogout(provider)));
}

/** `omp auth-gateway …`: omp's models served to other clients (auth-gateway.ts). */
export function describeAuthGateway(program: Command, run: Run): void {
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
    .action(run(async (options: import("../commands/auth-gateway.ts").ServeFlags) => (await import("../commands/auth-gateway.ts")).runGatewayServe(options)));
  gateway
    .command("token")
    .description("print the token clients send (Bearer or x-api-key), creating ~/.omp/auth-gateway.token on first use")
    .option("--regenerate", "replace the token; the old one stops working")
    .option("--json", "print JSON")
    .action(run(async (options: { regenerate?: boolean; json?: boolean }) => (await import("../commands/auth-gateway.ts")).runGatewayToken(options)));
  gateway
    .command("status")
    .description("whether a gateway answers at the address, and which providers and models it serves")
    .option("--bind <host:port>", "address to look at (default 127.0.0.1:4000)")
    .option("--json", "print JSON")
    .action(run(async (options: { bind?: string; json?: boolean }) => (await import("../commands/auth-gateway.ts")).runGatewayStatus(options)));
  gateway
    .command("check")
    .description("check each provider's credentials; --strict also sends each a one-token request (spends quota)")
    .option("--strict", "send a tiny request per credential")
    .option("--json", "print JSON")
    .action(run(async (options: { strict?: boolean; json?: boolean }) => (await import("../commands/auth-gateway.ts")).runGatewayCheck(options)));
}

/** `omp auth-broker …`: credentials kept on one host for others (auth-broker.ts). */
export function describeAuthBroker(program: Command, run: Run): void {
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
    .action(run(async (options: import("../commands/auth-broker.ts").BrokerServeFlags) => (await import("../commands/auth-broker.ts")).runBrokerServe(options)));
  broker
    .command("token")
    .description("print the bearer token clients need (~/.omp/auth-broker.token)")
    .option("--regenerate", "make a new token (clients must be given it)")
    .option("--json", "print JSON")
    .action(run(async (options: { regenerate?: boolean; json?: boolean }) => (await import("../commands/auth-broker.ts")).runBrokerToken(options)));
  broker
    .command("status")
    .description("ping the broker OMP_AUTH_BROKER_URL (or auth.broker.url) names; shows usage limits it knows")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/auth-broker.ts")).runBrokerStatus(options)));
  broker
    .command("list")
    .description("the subscription logins omp knows")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/auth-broker.ts")).runBrokerList(options)));
  broker
    .command("login")
    .description("log in on this host (the broker's vault keeps the tokens); --via logs in for a remote broker through ssh")
    .argument("[provider]", "anthropic, openai-codex, github-copilot or google-gemini-cli")
    .option("--via <user@host[:port]>", "run the login on that host over ssh, its callback port tunnelled to this machine's browser (OMP_SSH_OPTIONS adds ssh arguments)")
    .action(
      run(async (provider: string | undefined, options: { via?: string }) =>
        options.via ? (await import("../commands/auth-broker.ts")).runBrokerLoginVia(provider, options.via) : (await import("../commands/auth-login.ts")).runAuthLogin(provider, { local: true }),
      ),
    );
  broker
    .command("logout")
    .description("log out of a provider's logins in this host's vault")
    .argument("[provider]", "provider id")
    .action(run(async (provider: string | undefined) => (await import("../commands/auth-login.ts")).runAuthLogout(provider, { local: true })));
  broker
    .command("import")
    .description("import CLIProxyAPI credential files into this host's vault")
    .argument("<path>", "a credential .json file or a directory of them")
    .option("--provider <id>", "the provider, when the files' type is missing or unknown")
    .option("--include-disabled", "also import credentials marked disabled")
    .option("--dry-run", "only say what would be imported")
    .option("--json", "print JSON")
    .action(run(async (path: string, options: { provider?: string; includeDisabled?: boolean; dryRun?: boolean; json?: boolean }) => (await import("../commands/auth-broker.ts")).runBrokerImport(path, options)));
  broker
    .command("migrate")
    .description("upload this machine's stored credentials to the configured broker")
    .option("--from-local", "from this machine's vault (required)")
    .option("--include-oauth", "also upload subscription logins (API keys only by default)")
    .option("--dry-run", "only say what would be uploaded")
    .option("--json", "print JSON")
    .action(run(async (options: { fromLocal?: boolean; includeOauth?: boolean; dryRun?: boolean; json?: boolean }) => (await import("../commands/auth-broker.ts")).runBrokerMigrate(options)));
}
