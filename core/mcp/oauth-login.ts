import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OmpError, describeError } from "../errors/omp-error.ts";
import { VERSION } from "../version.ts";
import { type ResolvedServer, type RemoteServerEntry, isRemote } from "./config-schema.ts";
import { McpOAuthProvider } from "./oauth.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** How long `omp mcp login` waits for the browser to come back. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

/**
 * `omp mcp login <server>`: the SDK's OAuth flow for a streamable HTTP server. The authorization
 * URL goes to `show` (printed, and opened in a browser where there is one); the browser comes back
 * to a one-shot listener on loopback with the code, which is exchanged for tokens kept in agent.db.
 * A browser on another machine cannot reach that listener: the URL it ends on can be `pasted`
 * instead (asked for once the URL is shown). Returns the number of tools the server offers once logged in.
 */
export async function loginServer(server: ResolvedServer, env: NodeJS.ProcessEnv, show: (url: URL) => void, pasted?: () => Promise<string>): Promise<number> {
  if (!isRemote(server) || server.type !== "http") throw new OmpError(`MCP server "${server.name}" is not a streamable HTTP server; OAuth login is for "type": "http"`, { exitCode: EXIT_USAGE });
  const remote = server as ResolvedServer & RemoteServerEntry;
  const provider = new McpOAuthProvider(remote, env, show);
  let received: (code: string) => void = () => {};
  let refused: (error: Error) => void = () => {};
  const code = new Promise<string>((resolve, reject) => {
    received = resolve;
    refused = reject;
  });
  const listener = Bun.serve({
    hostname: "127.0.0.1",
    port: provider.redirectPort(),
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
      const value = url.searchParams.get("code");
      if (value) {
        received(value);
        return new Response("omp: logged in. You can close this tab.\n");
      }
      refused(new OmpError(`the authorization was refused: ${url.searchParams.get("error_description") ?? url.searchParams.get("error") ?? "no code"}`));
      return new Response("omp: the authorization failed; see the terminal.\n", { status: 400 });
    },
  });
  const transport = () => new StreamableHTTPClientTransport(new URL(remote.url), { requestInit: { headers: remote.headers }, authProvider: provider });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    let client = new Client({ name: "omp", version: VERSION }, { capabilities: {} });
    try {
      await client.connect(transport());
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new OmpError("no answer from the browser within 5 minutes; run omp mcp login again")), LOGIN_TIMEOUT_MS);
      });
      const authorization = await Promise.race([code, timeout, ...(pasted ? [pasted().then(codeFromPaste)] : [])]);
      await transport().finishAuth(authorization);
      client = await connectAgain(transport);
    }
    const { tools } = await client.listTools();
    await client.close();
    return tools.length;
  } catch (error) {
    if (error instanceof OmpError) throw error;
    throw new OmpError(`logging in to "${server.name}" failed: ${describeError(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    listener.stop(true);
    provider.close();
  }
}

/**
 * Connects with the new tokens. The server may have dropped the kept-alive socket of the refused
 * attempt while the user was in the browser; a reset connection is tried once more.
 */
async function connectAgain(transport: () => StreamableHTTPClientTransport): Promise<Client> {
  for (let attempt = 0; ; attempt++) {
    const client = new Client({ name: "omp", version: VERSION }, { capabilities: {} });
    try {
      await client.connect(transport());
      return client;
    } catch (error) {
      if (attempt > 0 || (error as { code?: string }).code !== "ECONNRESET") throw error;
    }
  }
}

/** The code in what the user pasted: the whole URL the browser ended on, or the code alone. */
function codeFromPaste(text: string): string {
  const trimmed = text.trim();
  const code = /^https?:\/\//i.test(trimmed) ? new URL(trimmed).searchParams.get("code") : trimmed;
  if (!code) throw new OmpError("the pasted text holds no authorization code: paste the whole URL the browser ended on");
  return code;
}
