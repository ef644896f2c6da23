// A remote MCP server behind OAuth built from the SDK's own server pieces (mcpAuthRouter,
// requireBearerAuth, the streamable HTTP transport), so every wire message is the SDK's. Unlike
// the SDK's example server it refreshes tokens, rotating the refresh token on each use, and lets a
// test expire or revoke what it issued. Run as `bun oauth-server.ts` with PORT set; prints
// "listening on <port>" when up.
//
// Test controls (plain HTTP): GET /test/stats → { refreshes, refreshToken }; the tools
// expire_tokens and revoke_tokens make the access tokens expire (and with revoke, the refresh
// token invalid) once their own call has been answered; greeting "late" is checked 700 ms late.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import { InvalidGrantError, InvalidRequestError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The parts of express's request and response this server uses (express ships no types). */
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse & { json(value: unknown): void; status(code: number): Response; set(name: string, value: string): Response; redirect(url: string): void };

const port = Number(process.env.PORT);
const base = new URL(`http://127.0.0.1:${port}`);
const mcpUrl = new URL("/mcp", base);
/** Long enough never to run out during a test on its own; the tools end tokens on demand. */
const ACCESS_TTL_S = 3600;

const clients = new Map<string, OAuthClientInformationFull>();
const codes = new Map<string, { clientId: string; challenge: string }>();
const accessTokens = new Map<string, { clientId: string; expiresAt: number }>();
/** Only the newest refresh token is valid: each refresh rotates it. */
let liveRefreshToken: string | undefined;
let refreshes = 0;

function issue(clientId: string): OAuthTokens {
  const access = randomUUID();
  accessTokens.set(access, { clientId, expiresAt: Date.now() + ACCESS_TTL_S * 1000 });
  liveRefreshToken = `r-${randomUUID()}`;
  return { access_token: access, token_type: "bearer", expires_in: ACCESS_TTL_S, refresh_token: liveRefreshToken };
}

const provider: OAuthServerProvider = {
  clientsStore: {
    getClient: async (id) => clients.get(id),
    registerClient: async (client) => {
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      return full;
    },
  },
  // The user approves at once.
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res) {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidRequestError("Unregistered redirect_uri");
    const code = randomUUID();
    codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    (res as unknown as Response).redirect(target.toString());
  },
  async challengeForAuthorizationCode(_client, code) {
    const entry = codes.get(code);
    if (!entry) throw new InvalidGrantError("unknown authorization code");
    return entry.challenge;
  },
  async exchangeAuthorizationCode(client, code) {
    const entry = codes.get(code);
    if (!entry || entry.clientId !== client.client_id) throw new InvalidGrantError("unknown authorization code");
    codes.delete(code);
    return issue(client.client_id);
  },
  async exchangeRefreshToken(client, refreshToken) {
    refreshes++;
    if (refreshToken !== liveRefreshToken) throw new InvalidGrantError("refresh token is invalid, used or revoked");
    return issue(client.client_id);
  },
  async verifyAccessToken(token): Promise<AuthInfo> {
    const entry = accessTokens.get(token);
    if (!entry || entry.expiresAt <= Date.now()) throw new InvalidTokenError("expired or unknown token");
    return { token, clientId: entry.clientId, scopes: [], expiresAt: Math.floor(entry.expiresAt / 1000) };
  },
};

function endAccessTokens(): void {
  for (const entry of accessTokens.values()) entry.expiresAt = 0;
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

function mcpServer(): Server {
  const server = new Server({ name: "oauth-test", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: "greet", description: "Greets someone.", inputSchema: { type: "object", properties: { name: { type: "string" } } }, annotations: { readOnlyHint: true } },
      { name: "expire_tokens", description: "Ends every access token once answered.", inputSchema: { type: "object", properties: {} } },
      { name: "revoke_tokens", description: "Ends every access token and the refresh token once answered.", inputSchema: { type: "object", properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    if (name === "greet") return text(`Hello, ${request.params.arguments?.name ?? "you"}!`);
    if (name === "expire_tokens" || name === "revoke_tokens") {
      // After the answer is on its way: this call's own token still counts.
      setTimeout(() => {
        endAccessTokens();
        if (name === "revoke_tokens") liveRefreshToken = undefined;
      }, 0);
      return text(`${name} done`);
    }
    return { ...text(`unknown tool ${name}`), isError: true };
  });
  return server;
}

const app = express();
app.use(mcpAuthRouter({
  provider,
  issuerUrl: base,
  resourceServerUrl: mcpUrl,
  authorizationOptions: { rateLimit: false },
  tokenOptions: { rateLimit: false },
  clientRegistrationOptions: { rateLimit: false },
}));
app.get("/test/stats", (_req: Request, res: Response) => {
  res.json({ refreshes, refreshToken: liveRefreshToken ?? null });
});
const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
// Stateless: each POST gets a server of its own, so a retried request needs no session.
/**
 * A call greeting "late" reaches the token check 700 ms after it arrived: with a parallel call,
 * its 401 comes back after the other call's refresh is done.
 */
async function lateGreeting(req: Request, _res: Response, next: () => void): Promise<void> {
  const body = req.body as { params?: { arguments?: { name?: string } } } | undefined;
  if (body?.params?.arguments?.name === "late") await new Promise((resolve) => setTimeout(resolve, 700));
  next();
}
app.post("/mcp", express.json(), lateGreeting, bearer, async (req: Request, res: Response) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = mcpServer();
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.all("/mcp", (_req: Request, res: Response) => {
  res.status(405).set("Allow", "POST").end();
});
app.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
