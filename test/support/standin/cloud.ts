// The cloud accounts' side, checking what the real services check: Bedrock verifies each
// request's SigV4 signature with the account's secret key (or its API key as a bearer) and
// answers in AWS's event-stream framing; Vertex AI takes only tokens its token endpoint minted,
// and that endpoint verifies the service account's RS256-signed JWT with the account's public
// key; Azure OpenAI and Foundry take the resource's key in `api-key`, and the dated Azure routes
// need their api-version. The verifier is written apart from omp's signer, from AWS's documented
// algorithm, so a signing bug on either side fails the test.
import { createHash, createHmac, createVerify, randomUUID } from "node:crypto";
import { encodeEventStreamMessage } from "./event-stream.ts";
import type { RecordedRequest } from "./core.ts";
import type { Reply } from "./script.ts";
import type { Refusal } from "./subscriptions.ts";

export interface CloudAccounts {
  aws?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string; region: string; bearer?: string };
  google?: { clientEmail: string; publicKeyPem: string; project: string; location: string; user?: { clientId: string; clientSecret: string; refreshToken: string } };
  azure?: { key: string; tenant?: string; clientId?: string; clientSecret?: string };
}

export class CloudState {
  /** Access tokens the token endpoint minted. */
  readonly tokens = new Set<string>();
  constructor(readonly accounts: CloudAccounts) {}
}

const awsError = (status: number, type: string, message: string): Refusal => ({ status, body: { message, __type: type } });

function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Rebuilds the canonical request from what arrived and compares signatures (AWS's "Create a signed request" steps). */
export function bedrockRefusal(request: RecordedRequest, state: CloudState, converse = false): Refusal | undefined {
  const aws = state.accounts.aws;
  if (!aws) return awsError(500, "InternalServerException", "stand-in: no AWS account configured");
  const authorization = request.headers.authorization ?? "";
  const body = converse ? converseBodyRefusal : bodyRefusal;
  if (aws.bearer && authorization === `Bearer ${aws.bearer}`) return request.method === "GET" ? undefined : body(request);
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  const [, keyId, day, region, service, signedHeaders, signature] = match;
  if (keyId !== aws.accessKeyId) return awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  if (region !== aws.region || service !== "bedrock") return awsError(403, "InvalidSignatureException", `Credential should be scoped to a valid region/service (${region}/${service}).`);
  const stamp = request.headers["x-amz-date"] ?? "";
  const when = Date.parse(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`);
  if (!stamp.startsWith(day!) || !(Math.abs(Date.now() - when) < 15 * 60_000)) return awsError(403, "InvalidSignatureException", "Signature expired or x-amz-date is malformed.");
  if (aws.sessionToken && request.headers["x-amz-security-token"] !== aws.sessionToken) return awsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return awsError(403, "InvalidSignatureException", "host and x-amz-date must be signed.");
  const canonicalHeaders = names.map((name) => `${name}:${(request.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const path = request.path.split("/").map((segment) => encode(segment)).join("/");
  const query = Object.entries(request.query)
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join("&");
  const payloadHash = createHash("sha256").update(request.rawBody ?? "").digest("hex");
  const canonical = `${request.method}\n${path}\n${query}\n${canonicalHeaders}\n${signedHeaders}\n${payloadHash}`;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${stamp}\n${scope}\n${createHash("sha256").update(canonical).digest("hex")}`;
  let key: Buffer = createHmac("sha256", `AWS4${aws.secretAccessKey}`).update(day!).digest();
  for (const part of [region!, service!, "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  const expected = createHmac("sha256", key).update(toSign).digest("hex");
  if (expected !== signature) return awsError(403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided.");
  return request.method === "GET" ? undefined : body(request);
}

/** Converse's own rules: alternating turns that start with the user, tools as toolSpecs with a JSON schema. */
function converseBodyRefusal(request: RecordedRequest): Refusal | undefined {
  const body = request.body ?? {};
  if (!Array.isArray(body.messages) || body.messages[0]?.role !== "user") return awsError(400, "ValidationException", "A conversation must start with a user message.");
  for (let i = 1; i < body.messages.length; i++) {
    if (body.messages[i].role === body.messages[i - 1].role) return awsError(400, "ValidationException", "A conversation must alternate between user and assistant roles.");
  }
  for (const tool of body.toolConfig?.tools ?? []) {
    if (typeof tool.toolSpec?.name !== "string" || typeof tool.toolSpec?.inputSchema?.json !== "object") return awsError(400, "ValidationException", "toolSpec needs a name and inputSchema.json");
  }
  if ("model" in body || "anthropic_version" in body) return awsError(400, "ValidationException", "extraneous key is not permitted");
  return undefined;
}

/** A scripted reply as ConverseStream sends it: named events in the event-stream framing. */
export function converseFrames(reply: Reply): Uint8Array {
  const events: [string, unknown][] = [["messageStart", { role: "assistant" }]];
  let index = 0;
  if (reply.text) {
    events.push(["contentBlockDelta", { contentBlockIndex: index, delta: { text: reply.text } }], ["contentBlockStop", { contentBlockIndex: index }]);
    index++;
  }
  for (const call of reply.toolCalls ?? []) {
    const id = call.id ?? `tooluse_${randomUUID().slice(0, 12)}`;
    const input = JSON.stringify(call.arguments);
    events.push(
      ["contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: id, name: call.name } } }],
      ["contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: input.slice(0, 5) } } }],
      ["contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: input.slice(5) } } }],
      ["contentBlockStop", { contentBlockIndex: index }],
    );
    index++;
  }
  const stop = reply.toolCalls?.length ? "tool_use" : reply.stop === "length" ? "max_tokens" : "end_turn";
  const usage = { input: 12, output: 7, ...reply.usage };
  events.push(["messageStop", { stopReason: stop }], ["metadata", { usage: { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output }, metrics: { latencyMs: 5 } }]);
  return Buffer.concat(events.map(([type, body]) => encodeEventStreamMessage({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, new TextEncoder().encode(JSON.stringify(body)))));
}

function bodyRefusal(request: RecordedRequest): Refusal | undefined {
  const body = request.body ?? {};
  if (body.anthropic_version !== "bedrock-2023-05-31") return awsError(400, "ValidationException", "anthropic_version: bedrock-2023-05-31 is required");
  for (const key of ["model", "stream"]) if (key in body) return awsError(400, "ValidationException", `extraneous key [${key}] is not permitted`);
  return undefined;
}

/** Anthropic's SSE events, each wrapped as Bedrock wraps it: a `chunk` whose `bytes` are the event's JSON in base64. */
export function bedrockFrames(events: string[]): Uint8Array {
  const parts = events.map((event) => {
    const data = event
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trim())
      .join("\n");
    const payload = new TextEncoder().encode(JSON.stringify({ bytes: Buffer.from(data).toString("base64"), p: "abcd" }));
    return encodeEventStreamMessage({ ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" }, payload);
  });
  return Buffer.concat(parts);
}

/** Google's OAuth token endpoint for a service account: a JWT bearer grant, RS256 checked with the account's public key. */
export function googleTokenAnswer(form: URLSearchParams, state: CloudState, url: string): Response {
  const google = state.accounts.google;
  const refuse = (description: string) => Response.json({ error: "invalid_grant", error_description: description }, { status: 400 });
  if (!google) return refuse("no service account configured");
  if (form.get("grant_type") === "refresh_token") {
    const user = google.user;
    if (!user || form.get("client_id") !== user.clientId || form.get("client_secret") !== user.clientSecret) return Response.json({ error: "invalid_client" }, { status: 401 });
    if (form.get("refresh_token") !== user.refreshToken) return refuse("Token has been expired or revoked.");
    return mint(state);
  }
  if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return refuse("unsupported grant_type");
  const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
  if (!header || !claims || !signature) return refuse("malformed assertion");
  if (!createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(google.publicKeyPem, Buffer.from(signature, "base64url"))) return refuse("Invalid JWT Signature.");
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString("utf8"));
  const now = Math.floor(Date.now() / 1000);
  if (payload.iss !== google.clientEmail) return refuse("Invalid issuer");
  if (payload.aud !== url) return refuse("Invalid audience");
  if (!String(payload.scope ?? "").includes("https://www.googleapis.com/auth/cloud-platform")) return refuse("Invalid scope");
  if (!(payload.exp > now && payload.iat <= now + 60 && payload.exp - payload.iat <= 3600)) return refuse("Invalid JWT: Token must be a short-lived token (60 minutes)");
  return mint(state);
}

function mint(state: CloudState): Response {
  const token = `ya29.standin-${randomUUID()}`;
  state.tokens.add(token);
  return Response.json({ access_token: token, expires_in: 3599, token_type: "Bearer" });
}

/** Entra ID's client-credentials grant (login.microsoftonline.com/<tenant>/oauth2/v2.0/token). */
export function entraTokenAnswer(tenant: string, form: URLSearchParams, state: CloudState): Response {
  const azure = state.accounts.azure;
  if (!azure?.tenant || tenant !== azure.tenant) return Response.json({ error: "invalid_request", error_description: "AADSTS90002: Tenant not found." }, { status: 400 });
  if (form.get("grant_type") !== "client_credentials" || form.get("scope") !== "https://cognitiveservices.azure.com/.default") return Response.json({ error: "invalid_scope" }, { status: 400 });
  if (form.get("client_id") !== azure.clientId || form.get("client_secret") !== azure.clientSecret) return Response.json({ error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided." }, { status: 401 });
  return mint(state);
}

export function vertexRefusal(request: RecordedRequest, state: CloudState, publisher: string, project: string, location: string): Refusal | undefined {
  const google = state.accounts.google;
  const token = (request.headers.authorization ?? "").replace(/^Bearer /, "");
  if (!google || !state.tokens.has(token)) return { status: 401, body: { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } } };
  if (project !== google.project || location !== google.location) return { status: 403, body: { error: { code: 403, message: `Permission denied on resource project ${project}.`, status: "PERMISSION_DENIED" } } };
  if (publisher === "anthropic") {
    const body = request.body ?? {};
    if (body.anthropic_version !== "vertex-2023-10-16") return { status: 400, body: { error: { code: 400, message: "anthropic_version: vertex-2023-10-16 is required", status: "INVALID_ARGUMENT" } } };
    if ("model" in body) return { status: 400, body: { error: { code: 400, message: "model: Extra inputs are not permitted", status: "INVALID_ARGUMENT" } } };
  }
  return undefined;
}

/** Azure OpenAI and Foundry: the resource key in `api-key`; a dated route needs its api-version. */
export function azureRefusal(request: RecordedRequest, state: CloudState, dated: boolean): Refusal | undefined {
  const bearer = (request.headers.authorization ?? "").replace(/^Bearer /, "");
  if (!state.accounts.azure || (request.headers["api-key"] !== state.accounts.azure.key && !state.tokens.has(bearer))) {
    return { status: 401, body: { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint." } } };
  }
  if (dated && !/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(request.query["api-version"] ?? "")) {
    return { status: 404, body: { error: { code: "404", message: "Resource not found" } } };
  }
  return undefined;
}
