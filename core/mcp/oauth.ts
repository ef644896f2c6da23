import { existsSync } from "node:fs";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CredentialStore } from "../auth/store.ts";
import { agentDbPath } from "../paths.ts";
import type { RemoteServerEntry, ResolvedServer } from "./config-schema.ts";

/** What omp keeps per remote server in agent.db: the registered client, tokens, the PKCE verifier. */
interface OAuthState {
  url: string;
  redirectPort?: number;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
}

const CREDENTIAL_TYPE = "mcp_oauth";

/** The server wants a new authorization (never logged in, or the refresh token was refused). */
export class LoginRequired extends Error {
  constructor(server: string) {
    super(`needs you to log in: run omp mcp login ${server} (in omp: /mcp auth ${server})`);
  }
}

/**
 * The SDK's OAuth client (discovery, dynamic client registration, PKCE, refresh) fed from and into
 * `agent.db` (0600). The redirect goes to a loopback port chosen once per server and registered
 * with it. Outside `omp mcp login` nobody can answer a browser, so a server that wants a new
 * authorization fails with a line saying to log in.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private saved: OAuthState | undefined;
  /** The tokens last given to the SDK: the ones a refusal is about. */
  private handedOut: OAuthTokens | undefined;
  private store: CredentialStore | undefined;

  constructor(
    private readonly server: ResolvedServer & RemoteServerEntry,
    private readonly env: NodeJS.ProcessEnv,
    /** Set by `omp mcp login`: shows the authorization URL (and opens a browser). */
    private readonly onAuthorizationUrl?: (url: URL) => void,
  ) {}

  private get key(): string {
    return `mcp:${this.server.name}`;
  }

  private openStore(create: boolean): CredentialStore | undefined {
    if (this.store) return this.store;
    const path = agentDbPath(this.env);
    if (!create && !existsSync(path)) return undefined;
    // bun:sqlite only for servers that speak OAuth.
    const { CredentialStore } = require("../auth/store.ts") as typeof import("../auth/store.ts");
    this.store = CredentialStore.open(path);
    return this.store;
  }

  private load(): OAuthState {
    if (this.saved) return this.saved;
    const saved = this.openStore(false)?.getCredential(this.key, CREDENTIAL_TYPE);
    const parsed = saved ? (JSON.parse(saved) as OAuthState) : undefined;
    // Tokens for another URL under the same name are not this server's.
    this.saved = parsed && parsed.url === this.server.url ? parsed : { url: this.server.url };
    return this.saved;
  }

  private save(change: (state: OAuthState) => void): void {
    const state = this.load();
    change(state);
    this.openStore(true)!.setCredential(this.key, CREDENTIAL_TYPE, JSON.stringify(state));
  }

  /** The loopback port the authorization comes back to, fixed at first use. */
  redirectPort(): number {
    const state = this.load();
    if (state.redirectPort) return state.redirectPort;
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    this.save((s) => {
      s.redirectPort = port;
    });
    return port;
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.redirectPort()}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "omp",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.load().client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.save((s) => {
      s.client = client;
    });
  }

  /**
   * Read afresh each time: another omp may have refreshed (and so rotated) the tokens since, and
   * its refresh token is then the only one the server still takes.
   */
  tokens(): OAuthTokens | undefined {
    this.saved = undefined;
    this.handedOut = this.load().tokens;
    return this.handedOut;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.save((s) => {
      s.tokens = tokens;
    });
  }

  redirectToAuthorization(url: URL): void {
    if (!this.onAuthorizationUrl) throw new LoginRequired(this.server.name);
    this.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.save((s) => {
      s.verifier = verifier;
    });
  }

  codeVerifier(): string {
    const verifier = this.load().verifier;
    if (!verifier) throw new Error("no PKCE verifier saved: start the login again");
    return verifier;
  }

  /**
   * The SDK's answer to a refused grant or client. Tokens another omp saved after the refused ones
   * are newer, not spent: they stay, and the SDK's retry refreshes with them instead of making
   * every omp log in again.
   */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.saved = undefined;
    this.save((s) => {
      if (scope === "all" || scope === "client") delete s.client;
      if (scope === "all" || (scope === "tokens" && sameTokens(s.tokens, this.handedOut))) delete s.tokens;
      if (scope === "all" || scope === "verifier") delete s.verifier;
    });
  }

  close(): void {
    this.store?.close();
    this.store = undefined;
  }
}

function sameTokens(a: OAuthTokens | undefined, b: OAuthTokens | undefined): boolean {
  return a?.access_token === b?.access_token && a?.refresh_token === b?.refresh_token;
}
