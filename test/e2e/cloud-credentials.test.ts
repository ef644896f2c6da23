// Where cloud credentials come from, on the compiled binary: AWS's instance metadata (IMDSv2),
// a container's credentials endpoint and an SSO login's cached token; Google's gcloud user
// login and a machine's metadata server; Entra ID's client secret; and Claude Code's
// CLAUDE_CODE_USE_BEDROCK switch. Each source is a loopback server speaking that service's API;
// the model calls go to the stand-in, which accepts only the credentials those sources handed out.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, workspace } from "../support/agent-harness.ts";
import { startStandin } from "../support/standin/index.ts";

await agentTestFile();

const aws = { accessKeyId: "ASIAOMPTEST000000002", secretAccessKey: `omptest_aws_${crypto.randomUUID()}`, sessionToken: `omptest_session_${crypto.randomUUID()}`, region: "us-west-2" };
const user = { clientId: "omp-client.apps.googleusercontent.com", clientSecret: `omptest_gsecret_${crypto.randomUUID()}`, refreshToken: `omptest_refresh_${crypto.randomUUID()}` };
const azure = { key: "unused-key", tenant: "omp-tenant", clientId: "omp-app", clientSecret: `omptest_entra_${crypto.randomUUID()}` };
const standin = await startStandin({ cloud: { aws, google: { clientEmail: "unused@x", publicKeyPem: "", project: "omp-project", location: "global", user }, azure } });

/** A loopback server standing for a credentials source; `seen` records each request's method, path and headers. */
function source(handler: (req: Request, url: URL) => Response | Promise<Response>) {
  const seen: { method: string; path: string; headers: Headers }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ method: req.method, path: url.pathname + url.search, headers: req.headers });
      return handler(req, url);
    },
  });
  afterAll(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, seen };
}

const awsAnswer = () => ({ AccessKeyId: aws.accessKeyId, SecretAccessKey: aws.secretAccessKey, Token: aws.sessionToken, Expiration: new Date(Date.now() + 3600_000).toISOString() });

async function bedrockPrompt(env: Record<string, string>, home?: string, args: string[] = ["--model", "amazon-bedrock/anthropic.claude-haiku-5-5-v1:0"]) {
  const ws = workspace();
  standin.setScript([{ text: "signed and answered" }]);
  const result = await runAgent(["-p", ...args, "hi"], { home: home ?? ws.home, cwd: ws.repo, env: { AWS_REGION: aws.region, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url, ...env } });
  expect(result.stderr).toBe("");
  expect(result.stdout).toContain("signed and answered");
  const request = modelRequests(standin).at(-1)!;
  expect(request.headers["x-amz-security-token"]).toBe(aws.sessionToken);
  return request;
}

describe("AWS credential chain", () => {
  test("an EC2 instance role through IMDSv2: a session token first, then the role's credentials", async () => {
    const imds = source((req, url) => {
      if (req.method === "PUT" && url.pathname === "/latest/api/token") return new Response("imds-token");
      if (req.headers.get("x-aws-ec2-metadata-token") !== "imds-token") return new Response("", { status: 401 });
      if (url.pathname === "/latest/meta-data/iam/security-credentials/") return new Response("omp-role\n");
      if (url.pathname === "/latest/meta-data/iam/security-credentials/omp-role") return Response.json({ Code: "Success", ...awsAnswer() });
      return new Response("", { status: 404 });
    });
    await bedrockPrompt({ AWS_EC2_METADATA_SERVICE_ENDPOINT: imds.url });
    expect(imds.seen.map((r) => `${r.method} ${r.path}`)).toEqual(["PUT /latest/api/token", "GET /latest/meta-data/iam/security-credentials/", "GET /latest/meta-data/iam/security-credentials/omp-role"]);
  });

  test("a container's credentials endpoint, with its authorization token", async () => {
    const container = source((req) => (req.headers.get("authorization") === "container-secret" ? Response.json(awsAnswer()) : new Response("", { status: 403 })));
    await bedrockPrompt({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `${container.url}/v2/credentials/abc`, AWS_CONTAINER_AUTHORIZATION_TOKEN: "container-secret", AWS_EC2_METADATA_DISABLED: "true" });
    expect(container.seen.length).toBe(1);
  });

  test("an SSO profile: the token `aws sso login` cached, traded at the portal for the role's credentials", async () => {
    const portal = source((req, url) => {
      if (req.headers.get("x-amz-sso_bearer_token") !== "sso-access" || url.searchParams.get("role_name") !== "Dev" || url.searchParams.get("account_id") !== "111122223333") {
        return Response.json({ message: "Session token not found or invalid" }, { status: 401 });
      }
      return Response.json({ roleCredentials: { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey, sessionToken: aws.sessionToken, expiration: Date.now() + 3600_000 } });
    });
    const { home } = workspace();
    mkdirSync(join(home, ".aws", "sso", "cache"), { recursive: true });
    writeFileSync(join(home, ".aws", "config"), `[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Dev\nregion = ${aws.region}\n\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n`);
    const cacheName = createHash("sha1").update("corp").digest("hex");
    writeFileSync(join(home, ".aws", "sso", "cache", `${cacheName}.json`), JSON.stringify({ accessToken: "sso-access", expiresAt: new Date(Date.now() + 3600_000).toISOString() }));
    await bedrockPrompt({ AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: portal.url, AWS_EC2_METADATA_DISABLED: "true" }, home);
    expect(portal.seen.length).toBe(1);
  });

  test("CLAUDE_CODE_USE_BEDROCK=1 without --model: Claude on Bedrock, as Claude Code users set it", async () => {
    const { home } = workspace();
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(join(home, ".aws", "credentials"), `[default]\naws_access_key_id = ${aws.accessKeyId}\naws_secret_access_key = ${aws.secretAccessKey}\naws_session_token = ${aws.sessionToken}\n`);
    const request = await bedrockPrompt({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_EC2_METADATA_DISABLED: "true", ANTHROPIC_API_KEY: "omptest_unused" }, home, []);
    expect(request.path).toBe("/model/anthropic.claude-opus-5-5-v1%3A0/invoke-with-response-stream");
  });
});

describe("Google and Azure sign-ins", () => {
  test("gcloud's application-default user login: its refresh token traded for an access token; the project from gcloud's configuration", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".config", "gcloud"), { recursive: true });
    writeFileSync(
      join(home, ".config", "gcloud", "application_default_credentials.json"),
      JSON.stringify({ type: "authorized_user", client_id: user.clientId, client_secret: user.clientSecret, refresh_token: user.refreshToken, token_uri: `${standin.url}/token` }),
    );
    // No project in the environment or the login file: gcloud's active configuration names it.
    mkdirSync(join(home, ".config", "gcloud", "configurations"));
    writeFileSync(join(home, ".config", "gcloud", "active_config"), "work");
    writeFileSync(join(home, ".config", "gcloud", "configurations", "config_work"), "[core]\naccount = me@example.com\nproject = omp-project\n");
    standin.setScript([{ text: "vertex via gcloud" }]);
    const result = await runAgent(["-p", "--model", "google-vertex/gemini-4-carbon", "hi"], { home, cwd: repo, env: { GOOGLE_VERTEX_BASE_URL: standin.url, GOOGLE_CLOUD_LOCATION: "global" } });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("vertex via gcloud");
    expect(modelRequests(standin).at(-1)!.path).toBe("/v1/projects/omp-project/locations/global/publishers/google/models/gemini-4-carbon:streamGenerateContent");
  });

  test("a Google Cloud machine's metadata server, when no key file is there", async () => {
    const token = `ya29.metadata-${crypto.randomUUID()}`;
    standin.cloud.tokens.add(token);
    const metadata = source((req) => (req.headers.get("metadata-flavor") === "Google" ? Response.json({ access_token: token, expires_in: 3599, token_type: "Bearer" }) : new Response("", { status: 403 })));
    const { home, repo } = workspace();
    standin.setScript([{ text: "vertex via metadata" }]);
    const result = await runAgent(["-p", "--model", "google-vertex-anthropic/claude-haiku-5-5", "hi"], {
      home,
      cwd: repo,
      env: { GOOGLE_VERTEX_BASE_URL: standin.url, GCE_METADATA_HOST: metadata.url.replace("http://", ""), GOOGLE_CLOUD_PROJECT: "omp-project", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: "" },
    });
    // GOOGLE_APPLICATION_CREDENTIALS empty and no gcloud file: the chain reaches the metadata server.
    expect(result.stdout).toContain("vertex via metadata");
    expect(metadata.seen[0]!.path).toBe("/computeMetadata/v1/instance/service-accounts/default/token");
  });

  test("Entra ID from a signed-in `az` CLI (a scripted az on PATH: the real one needs a Microsoft login)", async () => {
    const { home, repo } = workspace();
    const token = `eyJ.az-cli-${crypto.randomUUID()}`;
    standin.cloud.tokens.add(token);
    const bin = join(home, "bin");
    mkdirSync(bin);
    const expected = "account get-access-token --resource https://cognitiveservices.azure.com --output json";
    writeFileSync(join(bin, "az"), `#!/bin/sh\n[ "$*" = "${expected}" ] || { echo "unexpected: $*" >&2; exit 2; }\necho '{"accessToken": "${token}", "expires_on": ${Math.floor(Date.now() / 1000) + 3600}, "tokenType": "Bearer"}'\n`, { mode: 0o755 });
    standin.setScript([{ text: "azure via az" }]);
    const result = await runAgent(["-p", "--model", "azure-chat/gpt-6.2-sol", "hi"], { home, cwd: repo, env: { AZURE_OPENAI_BASE_URL: `${standin.url}/openai/v1`, PATH: `${bin}:${process.env.PATH}` } });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("azure via az");
    expect(modelRequests(standin).at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
  });

  test("Entra ID with a service principal's client secret: the token replaces the key", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "azure via entra" }]);
    const result = await runAgent(["-p", "--model", "azure/gpt-6.2-sol", "hi"], {
      home,
      cwd: repo,
      env: { AZURE_OPENAI_BASE_URL: `${standin.url}/openai/v1`, AZURE_AUTHORITY_HOST: standin.url, AZURE_TENANT_ID: azure.tenant, AZURE_CLIENT_ID: azure.clientId, AZURE_CLIENT_SECRET: azure.clientSecret },
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("azure via entra");
    const request = modelRequests(standin).at(-1)!;
    expect(request.headers["api-key"]).toBeUndefined();
    expect(standin.cloud.tokens.has(request.headers.authorization!.replace("Bearer ", ""))).toBe(true);
  });
});
