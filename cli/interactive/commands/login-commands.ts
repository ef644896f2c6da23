import { describeError } from "../../../core/errors/omp-error.ts";
import { login } from "../../../core/auth/oauth/login.ts";
import { OAUTH_PROVIDERS, oauthProvider } from "../../../core/auth/oauth/providers.ts";
import { CredentialStore } from "../../../core/auth/store.ts";
import { configuredBrokerUrl } from "../../../core/broker/config.ts";
import type { CommandHost } from "./commands.ts";
import { plural } from "../../../core/plural.ts";

/** The paste fallback of a login in progress: `/login paste <url or code>` hands it over. */
let pendingPaste: ((text: string) => void) | undefined;

function brokerUrl(host: CommandHost): string | undefined {
  return configuredBrokerUrl(host.runtime.options.env);
}

async function pickProvider(host: CommandHost, args: string, title: string, ids: readonly string[]): Promise<string | undefined> {
  if (args) return args;
  return host.pick(
    title,
    ids.map((id) => ({ label: id, detail: oauthProvider(id)?.name ?? "", value: id })),
    false,
  );
}

/** `/login [provider]`; `/login paste <url>` finishes one whose browser is elsewhere. */
export async function runLogin(host: CommandHost, args: string): Promise<void> {
  const [first, ...rest] = args.trim().split(/\s+/);
  if (first === "paste") {
    if (!pendingPaste) return host.notice("warning", "No login is waiting for a code.");
    return pendingPaste(rest.join(" "));
  }
  const broker = brokerUrl(host);
  if (broker) return host.notice("error", `This omp uses the auth broker at ${broker}: log in there with \`omp auth-broker login\`.`);
  const id = await pickProvider(host, first ?? "", "Log in to", OAUTH_PROVIDERS.map((provider) => provider.id));
  if (!id) return;
  const provider = oauthProvider(id);
  if (!provider) return host.notice("error", `No login for "${id}"; logins: ${OAUTH_PROVIDERS.map((p) => p.id).join(", ")}.`);
  host.setActivity(`Logging in to ${provider.name}`);
  try {
    const credential = await login(provider, {
      env: host.runtime.options.env,
      showUrl(url, instructions, userCode) {
        host.notice("info", `${instructions}${userCode ? ` (code ${userCode})` : ""}\n${url}${provider.flow === "pkce" ? "\nWithout a browser here: /login paste <the URL the browser ends on>" : ""}`);
      },
      progress: (message) => host.setActivity(message),
      pasted: () => new Promise<string>((resolve) => (pendingPaste = resolve)),
    });
    const store = CredentialStore.open();
    try {
      store.upsert(provider.id, credential);
    } finally {
      store.close();
    }
    host.notice("success", `Logged in to ${provider.name}${credential.email ? ` as ${credential.email}` : ""}.`);
  } catch (error) {
    host.notice("error", describeError(error));
  } finally {
    pendingPaste = undefined;
    host.setActivity(undefined);
  }
}

/** `/logout [provider]`: disables the provider's logins and erases their tokens. */
export async function runLogout(host: CommandHost, args: string): Promise<void> {
  const broker = brokerUrl(host);
  if (broker) return host.notice("error", `This omp uses the auth broker at ${broker}: log out there with \`omp auth-broker logout\`.`);
  const store = CredentialStore.open();
  try {
    const loggedIn = [...new Set(store.active().filter((row) => row.credential.type === "oauth").map((row) => row.provider))];
    if (loggedIn.length === 0) return host.notice("warning", "No subscription login to log out of.");
    const id = await pickProvider(host, args.trim(), "Log out of", loggedIn);
    if (!id) return;
    const removed = store.remove(id, "logged out by user", "oauth");
    host.notice(removed > 0 ? "success" : "warning", removed > 0 ? `Logged out of ${id} (${plural(removed, "account")}).` : `No login for ${id}.`);
  } finally {
    store.close();
  }
}
