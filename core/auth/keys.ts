import { type CommandOutput, runCredentialCommand } from "../ai/cloud/command.ts";
import { getProvider } from "../ai/providers-table.ts";
import { oauthProvider } from "./oauth/providers.ts";
import type { CredentialSource, ResolvedCredential } from "./source.ts";

export interface KeyRequest {
  provider: string;
  /** `--api-key`, for this process only. */
  cliKey?: string;
  /** models.yml `apiKey`: a literal, an env var name, or `!command`. */
  configKey?: string;
  /** The vault or the auth broker. */
  store?: Pick<CredentialSource, "resolve">;
  /** Stored credentials this session found blocked (a usage limit). */
  skip?: ReadonlySet<number>;
  env?: Record<string, string | undefined>;
  /** models.yml `auth: none`; built-in local servers are keyless without it. */
  keyless?: boolean;
}

/**
 * `source` says where the key came from, for messages like "anthropic rejected the key from
 * ANTHROPIC_API_KEY"; the key itself must never be printed. Keyless local servers resolve to
 * `key: undefined`.
 */
export type KeyResolution = { ok: true; key: string | undefined; source: string; stored?: ResolvedCredential } | { ok: false; error: string };

const COMMAND_TIMEOUT_MS = 10_000;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** First match wins: --api-key, models.yml apiKey, the credential store (or broker), the provider's env vars. */
export async function resolveApiKey(request: KeyRequest): Promise<KeyResolution> {
  const env = request.env ?? process.env;
  const provider = getProvider(request.provider);
  const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

  if (present(request.cliKey)) return { ok: true, key: request.cliKey.trim(), source: "--api-key" };

  let commandFailure: string | undefined;
  const configKey = request.configKey?.trim();
  if (present(configKey)) {
    if (configKey.startsWith("!")) {
      const result = await runKeyCommand(configKey.slice(1).trim());
      if ("key" in result) return { ok: true, key: result.key, source: "models.yml apiKey command" };
      commandFailure = result.error;
    } else if (ENV_NAME.test(configKey) && present(env[configKey])) {
      return { ok: true, key: env[configKey].trim(), source: `models.yml apiKey ($${configKey})` };
    } else {
      return { ok: true, key: configKey, source: "models.yml apiKey" };
    }
  }

  const stored = await request.store?.resolve(request.provider, request.skip);
  if (stored) return { ok: true, key: stored.key, source: stored.source, stored };

  for (const name of provider?.keyEnv ?? []) {
    const value = env[name];
    if (present(value)) return { ok: true, key: value.trim(), source: name };
  }

  if ((request.keyless ?? provider?.keyless) && commandFailure === undefined) return { ok: true, key: undefined, source: "none (no key needed)" };
  // A cloud account signs with what its own chain finds (core/ai/cloud/): instance roles and
  // metadata servers leave no trace to check here, and the chain says what is missing.
  if (provider?.transport && commandFailure === undefined) return { ok: true, key: undefined, source: `${provider.name} credentials` };

  const vars = provider?.keyEnv ?? [];
  const login = oauthProvider(request.provider) ? `, or log in with \`omp auth login ${request.provider}\`` : "";
  const hint =
    vars.length === 0 && login !== ""
      ? `log in with \`omp auth login ${request.provider}\``
      : vars.length > 0
      ? `set ${vars[0]}${vars.length > 1 ? ` (or ${vars.slice(1).join(", ")})` : ""}, or run \`omp auth add ${request.provider}\``
      : `set apiKey for it in models.yml, or run \`omp auth add ${request.provider}\``;
  const loginHint = vars.length > 0 ? login : "";
  const because = commandFailure === undefined ? "" : ` (${commandFailure})`;
  return { ok: false, error: `No API key for ${request.provider}${because}: ${hint}${loginHint}` };
}

type CommandResult = { key: string } | { error: string };
const commandCache = new Map<string, Promise<CommandResult>>();

/**
 * Runs a models.yml `!command` through the shell, as the user wrote it in their own config.
 * Each command runs once per process: a password manager prompt should not repeat per model.
 */
function runKeyCommand(command: string): Promise<CommandResult> {
  let pending = commandCache.get(command);
  if (!pending) {
    pending = execute(command);
    commandCache.set(command, pending);
    // A failure is not cached, so fixing the command (or unlocking the vault) works without a restart.
    pending.then((r) => {
      if ("error" in r) commandCache.delete(command);
    });
  }
  return pending;
}

async function execute(command: string): Promise<CommandResult> {
  let output: CommandOutput;
  try {
    output = await runCredentialCommand(["sh", "-c", command], COMMAND_TIMEOUT_MS);
  } catch (error) {
    return { error: `the apiKey command could not start: ${error instanceof Error ? error.message : String(error)}` };
  }
  if ("timedOut" in output) return { error: `the apiKey command did not finish within ${COMMAND_TIMEOUT_MS / 1000} s` };
  const { stdout, stderr, code } = output;
  if (code !== 0) {
    const detail = stderr.split("\n").pop();
    return { error: `the apiKey command exited with status ${code}${detail ? `: ${detail}` : ""}` };
  }
  const key = stdout.trim();
  return key === "" ? { error: "the apiKey command printed nothing" } : { key };
}

/** What to tell a user whose key `provider` refused: where that key came from and where to change it. */
export function refusedKeyHint(provider: string, source: string): string {
  if (source === "credential store") return `the key came from omp's credential store: replace it with \`omp auth add ${provider}\` (or \`omp auth login ${provider}\`)`;
  if (source === "auth broker") return `the key came from the auth broker: log in again there (\`omp auth-broker login ${provider}\`)`;
  if (source === "--api-key") return "the key came from --api-key: pass the right one";
  if (source.startsWith("models.yml")) return `the key came from ${source} in ~/.omp/agent/models.yml: correct it there`;
  if (ENV_NAME.test(source)) return `the key came from the environment variable ${source}: set it to a valid key (or unset it to use \`omp auth add ${provider}\`)`;
  return `the key came from ${source}`;
}
