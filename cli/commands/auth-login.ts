import { OmpError } from "../../core/errors/omp-error.ts";
import { configuredBrokerUrl } from "../../core/broker/config.ts";
import { login } from "../../core/auth/oauth/login.ts";
import { OAUTH_PROVIDERS, type OAuthProvider, oauthProvider } from "../../core/auth/oauth/providers.ts";
import { CredentialStore } from "../../core/auth/store.ts";
import { accountLabel } from "../../core/auth/credential.ts";
import { agentDbPath, displayPath } from "../../core/paths.ts";
import { openBrowser } from "../shared/open-browser.ts";
import { firstLine } from "../shared/stdin-line.ts";
import { writeStdout } from "../shared/write.ts";
import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { plural } from "../../core/plural.ts";

/** In broker mode the broker's vault is the one in use: a local write would silently change nothing. */
export function refuseInBrokerMode(what: string): void {
  const url = configuredBrokerUrl();
  if (!url) return;
  throw new OmpError(
    `this omp uses the auth broker at ${url}, so it cannot ${what} here: on the broker host run \`omp auth-broker login\` / \`omp auth-broker logout\`, or upload this machine's credentials with \`omp auth-broker migrate --from-local\``,
    { exitCode: EXIT_USAGE },
  );
}

const providerList = () => OAUTH_PROVIDERS.map((provider) => `${provider.id} (${provider.name})`).join(", ");

/** The provider asked for, or on a terminal a numbered pick read by `nextLine`; a script must name it. */
export async function chooseProvider(id: string | undefined, nextLine: (prompt: string) => Promise<string> = firstLine): Promise<OAuthProvider> {
  if (id !== undefined) {
    const provider = oauthProvider(id);
    if (!provider) throw new OmpError(`no login for "${id}"; logins: ${providerList()}`, { exitCode: EXIT_USAGE });
    return provider;
  }
  if (!process.stdin.isTTY) throw new OmpError(`name the provider to log in to: ${providerList()}`, { exitCode: EXIT_USAGE });
  OAUTH_PROVIDERS.forEach((provider, index) => process.stderr.write(`  ${index + 1}. ${provider.name} (${provider.id})\n`));
  const answer = (await nextLine("Log in to which? ")).trim();
  const picked = OAUTH_PROVIDERS[Number.parseInt(answer, 10) - 1] ?? oauthProvider(answer);
  if (!picked) throw new OmpError(`"${answer}" is none of the listed logins`, { exitCode: EXIT_USAGE });
  return picked;
}

/**
 * A subscription login on a terminal, stored in the vault (another account of the same provider is
 * added beside the first): the URL on stderr and in a browser when there is one, and the paste
 * fallback read by `nextLine` (which answers "" when nothing more can be read).
 */
export async function loginOnTerminal(provider: OAuthProvider, nextLine: (prompt?: string) => Promise<string>, env: Record<string, string | undefined> = process.env): Promise<string> {
  const credential = await login(provider, {
    env,
    showUrl(url, instructions, userCode) {
      process.stderr.write(`${instructions}\n\n  ${url}\n\n`);
      if (userCode) process.stderr.write(`code: ${userCode}\n`);
      openBrowser(url);
    },
    progress: (message) => process.stderr.write(`${message}\n`),
    async pasted() {
      if (provider.flow === "device") return new Promise<string>(() => {});
      const line = await nextLine(process.stdin.isTTY ? "Paste the redirect URL or code here (or finish in the browser): " : undefined);
      // End of input (no terminal, nothing piped): only the browser's callback can finish the login.
      return line === "" ? new Promise<string>(() => {}) : line;
    },
  });
  const store = CredentialStore.open(agentDbPath(env as NodeJS.ProcessEnv));
  try {
    const stored = store.upsert(provider.id, credential);
    return `logged in to ${provider.name} as ${accountLabel(credential, stored.id)}; stored in ${displayPath(store.path)}`;
  } finally {
    store.close();
  }
}

/** `omp auth login [provider]`. */
export async function runAuthLogin(id: string | undefined, options: { local?: boolean } = {}): Promise<number> {
  if (!options.local) refuseInBrokerMode("log in");
  const done = await loginOnTerminal(await chooseProvider(id), firstLine);
  await writeStdout(`${done}\n`);
  // The pending stdin read would keep the process alive.
  process.stdin.destroy();
  return 0;
}

/** `omp auth logout [provider]`: disables the provider's logins and erases their tokens. */
export async function runAuthLogout(id: string | undefined, options: { local?: boolean } = {}): Promise<number> {
  if (!options.local) refuseInBrokerMode("log out");
  const store = CredentialStore.open();
  try {
    const logins = store.active().filter((row) => row.credential.type === "oauth");
    const providers = id === undefined ? [...new Set(logins.map((row) => row.provider))] : [id];
    if (id !== undefined && !oauthProvider(id)) throw new OmpError(`no login for "${id}"; logins: ${providerList()}`, { exitCode: EXIT_USAGE });
    let removed = 0;
    for (const provider of providers) removed += store.remove(provider, "logged out by user", "oauth");
    if (removed === 0) {
      process.stderr.write(`omp: no login${id ? ` for ${id}` : ""} to log out of\n`);
      return EXIT_FAILURE;
    }
    await writeStdout(`logged out of ${plural(removed, "account")} (${providers.join(", ")})\n`);
  } finally {
    store.close();
  }
  return 0;
}
