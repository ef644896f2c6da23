// Cloud accounts on the compiled binary: Amazon Bedrock (SigV4 from keys, a credential_process
// profile, or a Bedrock API key; AWS's event-stream framing), Google Vertex AI (a service
// account's JWT traded for a token; Gemini and Claude), Azure OpenAI (v1 and dated deployment
// routes) and Claude on Foundry — each a real tool-using session against a stand-in that checks
// what the service checks — plus the same through the gateway, and the long tail's model lists.
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ProviderApi, agentTestFile, modelRequests, runAgent, sessionFiles, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { startGatewayProcess } from "../support/gateway.ts";
import { type Standin, startStandin } from "../support/standin/index.ts";

await agentTestFile();

const aws = { accessKeyId: "AKIAOMPTEST0000000001", secretAccessKey: `omptest_aws_${crypto.randomUUID().replaceAll("-", "")}`, region: "eu-west-1", bearer: `omptest_bedrock_${crypto.randomUUID()}` };
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const google = { clientEmail: "omp-test@omp-project.iam.gserviceaccount.com", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), project: "omp-project", location: "us-east5" };
const azure = { key: `omptest_azure_${crypto.randomUUID().replaceAll("-", "")}` };
const standin = await startStandin({ cloud: { aws, google, azure } });

const TOOL_TURNS = [{ toolCalls: [{ name: "read", arguments: { path: "README.md" } }] }, { text: "the readme says demo" }];

/** A read call and an answer: the second request must carry the file, proving the whole loop ran through the cloud path. */
/** The tool results a request carries back; Converse's toolResult blocks beside the harness's four formats. */
function resultTexts(api: ProviderApi | "bedrock-converse", body: any): string {
  if (api !== "bedrock-converse") return toolResultsOf(api, body).map((r) => r.text).join("\n");
  return body.messages
    .flatMap((m: any) => m.content)
    .filter((b: any) => b.toolResult)
    .flatMap((b: any) => b.toolResult.content.map((c: any) => c.text))
    .join("\n");
}

async function toolSession(model: string, api: ProviderApi | "bedrock-converse", env: Record<string, string>, home?: string): Promise<{ home: string; requests: ReturnType<typeof modelRequests> }> {
  const ws = workspace();
  const before = modelRequests(standin).length;
  standin.setScript(TOOL_TURNS);
  const result = await runAgent(["-p", "--model", model, "what does the readme say?"], { home: home ?? ws.home, cwd: ws.repo, env });
  // Progress lines only ("→ read README.md"): no warning, no error.
  expect(result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("→"))).toEqual([]);
  expect(result.stdout).toContain("the readme says demo");
  expect(result.code).toBe(0);
  // The token endpoint shares the stand-in; only the model calls count here.
  const requests = modelRequests(standin).slice(before).filter((r) => r.path !== "/token");
  expect(requests.length).toBe(2);
  expect(resultTexts(api, requests[1]!.body)).toContain("# demo");
  return { home: home ?? ws.home, requests };
}

function serviceAccountFile(dir: string): string {
  const path = join(dir, "sa.json");
  const key = {
    type: "service_account",
    project_id: google.project,
    private_key_id: "k1",
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: google.clientEmail,
    token_uri: `${standin.url}/token`,
  };
  writeFileSync(path, JSON.stringify(key));
  return path;
}

describe("Amazon Bedrock", () => {
  const base = () => ({ AWS_REGION: aws.region, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url, AWS_EC2_METADATA_DISABLED: "true" });

  test("keys in the environment: every request signed with SigV4, the model in the path, the body as Bedrock takes it", async () => {
    const { home, requests } = await toolSession("amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0", "anthropic-messages", { ...base(), AWS_ACCESS_KEY_ID: aws.accessKeyId, AWS_SECRET_ACCESS_KEY: aws.secretAccessKey });
    expect(requests[0]!.path).toBe("/model/anthropic.claude-sonnet-5-5-v1%3A0/invoke-with-response-stream");
    expect(requests[0]!.headers.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${aws.accessKeyId}/`);
    expect(requests[0]!.body.anthropic_version).toBe("bedrock-2023-05-31");
    for (const file of sessionFiles(home)) expect(readFileSync(file, "utf8")).not.toContain(aws.secretAccessKey);
  });

  test("the AWS secret key is redacted from what a tool saves and the session keeps", async () => {
    const ws = workspace();
    standin.setScript([{ toolCalls: [{ name: "bash", arguments: { command: "echo secret=$AWS_SECRET_ACCESS_KEY" } }] }, { text: "done" }]);
    const env = { ...base(), AWS_ACCESS_KEY_ID: aws.accessKeyId, AWS_SECRET_ACCESS_KEY: aws.secretAccessKey };
    const result = await runAgent(["-p", "--model", "amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0", "show it"], { home: ws.home, cwd: ws.repo, env });
    expect(result.code).toBe(0);
    const files = sessionFiles(ws.home);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(file, "utf8")).not.toContain(aws.secretAccessKey);
  });

  test("a profile whose credential_process prints temporary credentials (AWS_PROFILE, ~/.aws/config)", async () => {
    const { home } = workspace();
    mkdirSync(join(home, ".aws"), { recursive: true });
    const printed = JSON.stringify({ Version: 1, AccessKeyId: aws.accessKeyId, SecretAccessKey: aws.secretAccessKey, SessionToken: "omptest-session-token" });
    writeFileSync(join(home, ".aws", "config"), `[default]\nregion = us-west-2\n\n[profile work]\nregion = ${aws.region}\ncredential_process = printf '%s' '${printed}'\n`);
    standin.cloud.accounts.aws = { ...aws, sessionToken: "omptest-session-token" };
    try {
      const { requests } = await toolSession("amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0", "anthropic-messages", { AWS_PROFILE: "work", AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url, AWS_EC2_METADATA_DISABLED: "true" }, home);
      expect(requests[0]!.headers["x-amz-security-token"]).toBe("omptest-session-token");
      expect(requests[0]!.headers.authorization).toContain(`/${aws.region}/bedrock/aws4_request`);
    } finally {
      standin.cloud.accounts.aws = aws;
    }
  });

  test("a model Bedrock hosts besides Claude goes through Converse: toolSpecs, toolResult turns, named stream events", async () => {
    const { requests } = await toolSession("amazon-bedrock/amazon.nova-pro-v1:0", "bedrock-converse", { ...base(), AWS_ACCESS_KEY_ID: aws.accessKeyId, AWS_SECRET_ACCESS_KEY: aws.secretAccessKey });
    expect(requests[0]!.path).toBe("/model/amazon.nova-pro-v1%3A0/converse-stream");
    expect(requests[0]!.body.toolConfig.tools.map((t: any) => t.toolSpec.name)).toContain("read");
    const [, assistant, results] = requests[1]!.body.messages;
    expect(assistant.content[0].toolUse.name).toBe("read");
    expect(results.content[0].toolResult.toolUseId).toBe(assistant.content[0].toolUse.toolUseId);
  });

  test("a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) goes as a bearer, unsigned", async () => {
    const { requests } = await toolSession("amazon-bedrock/anthropic.claude-haiku-5-5-v1:0", "anthropic-messages", { ...base(), AWS_BEARER_TOKEN_BEDROCK: aws.bearer });
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${aws.bearer}`);
  });

  test("a wrong secret key: Bedrock's refusal, said once, exit 1", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ text: "never" }]);
    const result = await runAgent(["-p", "--model", "amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0", "hi"], {
      home,
      cwd: repo,
      env: { ...base(), AWS_ACCESS_KEY_ID: aws.accessKeyId, AWS_SECRET_ACCESS_KEY: "wrong-secret" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("does not match the signature");
    expect(result.stderr).not.toContain("wrong-secret");
  });

  test("no credentials at all: the error names what to set", async () => {
    const { home, repo } = workspace();
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(join(home, ".aws", "config"), "[default]\nregion = eu-west-1\n");
    const result = await runAgent(["-p", "--model", "amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0", "hi"], { home, cwd: repo, env: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url, AWS_EC2_METADATA_DISABLED: "true" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("AWS_ACCESS_KEY_ID");
  });
});

describe("cloud model lists", () => {
  test("omp models asks Bedrock (signed ListFoundationModels) and Azure (api-key) what they serve; a listed Bedrock model takes the right wire API", async () => {
    const served = await startStandin({ cloud: { aws, azure }, models: [{ id: "anthropic.claude-opus-9-v1:0" }, { id: "amazon.nova-ultra-v2:0" }, { id: "gpt-7" }] });
    try {
      const { home, repo } = workspace();
      const env = {
        AWS_REGION: aws.region,
        AWS_ACCESS_KEY_ID: aws.accessKeyId,
        AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
        AWS_ENDPOINT_URL: served.url,
        AWS_EC2_METADATA_DISABLED: "true",
        AZURE_OPENAI_BASE_URL: `${served.url}/openai/v1`,
        AZURE_OPENAI_API_KEY: azure.key,
      };
      const listed = await runAgent(["models", "--refresh"], { home, cwd: repo, env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("amazon-bedrock/amazon.nova-ultra-v2:0");
      expect(listed.stdout).toContain("azure/gpt-7");
      const get = served.requests.find((r) => r.path === "/foundation-models")!;
      expect(get.headers.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${aws.accessKeyId}/`);
      served.setScript([{ text: "nova answered" }]);
      const answered = await runAgent(["-p", "--model", "amazon-bedrock/amazon.nova-ultra-v2:0", "hi"], { home, cwd: repo, env });
      expect(answered.stdout).toContain("nova answered");
      expect(modelRequests(served).at(-1)!.path).toBe("/model/amazon.nova-ultra-v2%3A0/converse-stream");
    } finally {
      await served.close();
    }
  });
});

describe("Google Vertex AI", () => {
  const env = (dir: string) => ({ GOOGLE_APPLICATION_CREDENTIALS: serviceAccountFile(dir), GOOGLE_VERTEX_BASE_URL: standin.url, GOOGLE_CLOUD_LOCATION: google.location });

  test("Gemini with a service account key: the JWT traded at its token_uri, the token on every request", async () => {
    const { home } = workspace();
    const { requests } = await toolSession("google-vertex/gemini-4-carbon", "google-generative-ai", env(home), home);
    expect(requests[0]!.path).toBe(`/v1/projects/${google.project}/locations/${google.location}/publishers/google/models/gemini-4-carbon:streamGenerateContent`);
    expect(standin.cloud.tokens.has(requests[0]!.headers.authorization!.replace("Bearer ", ""))).toBe(true);
  });

  test("Claude on Vertex: streamRawPredict with Vertex's anthropic_version and no model in the body", async () => {
    const { home } = workspace();
    const { requests } = await toolSession("google-vertex-anthropic/claude-sonnet-5-5", "anthropic-messages", env(home), home);
    expect(requests[0]!.path).toEndWith("/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict");
    expect(requests[0]!.body.anthropic_version).toBe("vertex-2023-10-16");
  });
});

describe("Azure", () => {
  test("Azure OpenAI Responses on the v1 API, the key in api-key, a deployment named apart from its model", async () => {
    const { requests } = await toolSession("azure/gpt-6.2-sol", "openai-responses", {
      AZURE_OPENAI_BASE_URL: `${standin.url}/openai/v1`,
      AZURE_OPENAI_API_KEY: azure.key,
      AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-6.2-sol=prod-sol",
    });
    expect(requests[0]!.path).toBe("/openai/v1/responses");
    expect(requests[0]!.body.model).toBe("prod-sol");
    expect(requests[0]!.headers.authorization).toBeUndefined();
  });

  test("Azure OpenAI Chat Completions through a dated api-version: /openai/deployments/<name>/chat/completions", async () => {
    const { requests } = await toolSession("azure-chat/gpt-6.2-sol", "openai-completions", {
      AZURE_OPENAI_BASE_URL: `${standin.url}/openai/v1`,
      AZURE_OPENAI_API_KEY: azure.key,
      AZURE_OPENAI_API_VERSION: "2024-10-21",
    });
    expect(requests[0]!.path).toBe("/openai/deployments/gpt-6.2-sol/chat/completions");
    expect(requests[0]!.query["api-version"]).toBe("2024-10-21");
  });

  test("Claude on Microsoft Foundry (ANTHROPIC_FOUNDRY_BASE_URL, ANTHROPIC_FOUNDRY_API_KEY)", async () => {
    const { requests } = await toolSession("azure-foundry/claude-opus-5-5", "anthropic-messages", { ANTHROPIC_FOUNDRY_BASE_URL: `${standin.url}/anthropic`, ANTHROPIC_FOUNDRY_API_KEY: azure.key });
    expect(requests[0]!.headers["api-key"]).toBe(azure.key);
    expect(requests[0]!.headers["x-api-key"]).toBeUndefined();
    expect(requests[0]!.body.model).toBe("claude-opus-5-5");
  });
});

describe("through the gateway", () => {
  test("an Anthropic Messages client runs a tool round trip on Bedrock, Vertex, Azure and Foundry through omp auth-gateway", async () => {
    const { home } = workspace();
    const gateway = await startGatewayProcess(home, {
      AWS_REGION: aws.region,
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standin.url,
      AWS_ACCESS_KEY_ID: aws.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: "true",
      GOOGLE_APPLICATION_CREDENTIALS: serviceAccountFile(home),
      GOOGLE_VERTEX_BASE_URL: standin.url,
      GOOGLE_CLOUD_LOCATION: google.location,
      AZURE_OPENAI_BASE_URL: `${standin.url}/openai/v1`,
      AZURE_OPENAI_API_KEY: azure.key,
      ANTHROPIC_FOUNDRY_BASE_URL: `${standin.url}/anthropic`,
      ANTHROPIC_FOUNDRY_API_KEY: azure.key,
    });
    const post = async (model: string, messages: unknown[]) => {
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": gateway.token, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model, max_tokens: 100, messages, tools: [{ name: "lookup", description: "Looks a word up", input_schema: { type: "object", properties: { word: { type: "string" } } } }] }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { content: { type: string; text?: string; id?: string; name?: string }[]; stop_reason: string };
    };
    const paths: Record<string, RegExp> = {
      "amazon-bedrock/anthropic.claude-sonnet-5-5-v1:0": /^\/model\/.*\/invoke-with-response-stream$/,
      "google-vertex-anthropic/claude-sonnet-5-5": /:streamRawPredict$/,
      "azure/gpt-6.2-sol": /^\/openai\/v1\/responses$/,
      "azure-foundry/claude-sonnet-5-5": /^\/anthropic\/v1\/messages$/,
    };
    try {
      for (const [model, path] of Object.entries(paths)) {
        standin.setScript([{ toolCalls: [{ name: "lookup", arguments: { word: "omp" } }] }, { text: `answered by ${model}` }]);
        const before = modelRequests(standin).filter((r) => r.path !== "/token").length;
        const first = await post(model, [{ role: "user", content: "look up omp" }]);
        expect(first.stop_reason).toBe("tool_use");
        const call = first.content.find((c) => c.type === "tool_use")!;
        expect(call.name).toBe("lookup");
        const second = await post(model, [
          { role: "user", content: "look up omp" },
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "a coding agent" }] },
        ]);
        expect(second.content.find((c) => c.type === "text")!.text).toBe(`answered by ${model}`);
        const sent = modelRequests(standin).filter((r) => r.path !== "/token").slice(before);
        expect(sent.map((r) => path.test(r.path))).toEqual([true, true]);
        expect(JSON.stringify(sent[1]!.body)).toContain("a coding agent");
      }
    } finally {
      await gateway.stop();
    }
  });
});

describe("the long tail", () => {
  const cases: [string, string, string][] = [
    ["fireworks", "FIREWORKS_API_KEY", "FIREWORKS_BASE_URL"],
    ["nvidia", "NVIDIA_API_KEY", "NVIDIA_BASE_URL"],
    ["huggingface", "HF_TOKEN", "HUGGINGFACE_BASE_URL"],
    ["moonshot", "MOONSHOT_API_KEY", "MOONSHOT_BASE_URL"],
    ["zai", "ZAI_API_KEY", "ZAI_BASE_URL"],
    ["dashscope", "DASHSCOPE_API_KEY", "DASHSCOPE_BASE_URL"],
    ["minimax", "MINIMAX_API_KEY", "MINIMAX_BASE_URL"],
    ["cohere", "COHERE_API_KEY", "COHERE_BASE_URL"],
    ["vercel-ai-gateway", "AI_GATEWAY_API_KEY", "AI_GATEWAY_BASE_URL"],
    ["litellm", "LITELLM_API_KEY", "LITELLM_BASE_URL"],
    ["github-models", "GITHUB_MODELS_TOKEN", "GITHUB_MODELS_BASE_URL"],
  ];

  test("omp models reads each one's model list with its key, and a listed model answers a prompt", async () => {
    const lists: Standin[] = [];
    try {
      const { home, repo } = workspace();
      const env: Record<string, string> = {};
      for (const [provider, keyVar, baseVar] of cases) {
        const served = await startStandin({ models: [{ id: `${provider}-coder-1` }] });
        lists.push(served);
        env[keyVar] = `omptest_${provider.replaceAll("-", "_")}_key`;
        env[baseVar] = `${served.url}/v1`;
      }
      const listed = await runAgent(["models", "--refresh"], { home, cwd: repo, env });
      expect(listed.code).toBe(0);
      for (const [index, [provider, keyVar]] of cases.entries()) {
        expect(listed.stdout).toContain(`${provider}/${provider}-coder-1`);
        const get = lists[index]!.requests.find((r) => r.method === "GET");
        expect(get?.headers.authorization).toBe(`Bearer ${env[keyVar]}`);
      }
      const chat = lists[0]!;
      chat.setScript([{ text: "fireworks answered" }]);
      const answered = await runAgent(["-p", "--model", "fireworks/fireworks-coder-1", "hi"], { home, cwd: repo, env });
      expect(answered.stdout).toContain("fireworks answered");
      expect(answered.code).toBe(0);
    } finally {
      await Promise.all(lists.map((s) => s.close()));
    }
  });

  test("before any `omp models --refresh`, a model id on a catalog-less provider with a key is taken as written; without a key it is not", async () => {
    const served = await startStandin();
    try {
      const { home, repo } = workspace();
      for (const [provider, keyVar, baseVar] of [cases[0]!, cases[1]!, cases[3]!, cases[4]!]) {
        const id = `accounts/${provider}/models/coder-9`;
        served.setScript([{ text: `${provider} answered` }]);
        served.requests.length = 0;
        const env = { [keyVar]: `omptest_${provider}_key`, [baseVar]: `${served.url}/v1` };
        const answered = await runAgent(["-p", "--model", `${provider}/${id}`, "hi"], { home, cwd: repo, env });
        expect({ code: answered.code, stdout: answered.stdout, stderr: answered.stderr }).toEqual({ code: 0, stdout: `${provider} answered\n`, stderr: "" });
        const post = served.requests.find((r) => r.method === "POST");
        expect(post!.body.model).toBe(id);
        expect(post!.headers.authorization).toBe(`Bearer omptest_${provider}_key`);
      }
      const keyless = await runAgent(["-p", "--model", "fireworks/some-model", "hi"], { home, cwd: repo, env: {} });
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain('unknown model "fireworks/some-model"');
    } finally {
      await served.close();
    }
  });
});
