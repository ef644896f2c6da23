import { existsSync, readFileSync } from "node:fs";
import type { Api } from "./model.ts";

export interface ProviderInfo {
  id: string;
  name: string;
  api: Api;
  /** Without a trailing slash, in the form Model.baseUrl takes. */
  baseUrl: string;
  /** Checked in order; the first set one supplies the key. */
  keyEnv: string[];
  /** Checked in order; the first set one replaces `baseUrl`. */
  baseUrlEnv: string[];
  /** Local servers run without a key; one is sent only when configured. */
  keyless: boolean;
  /** Probed by local discovery. */
  local: boolean;
  /** Sent with every request to it: the client identity a subscription backend checks. */
  headers?: Record<string, string>;
  /**
   * A cloud account reached through its own endpoint, signing and framing (core/ai/cloud/):
   * the adapter builds the wire API's body, the transport sends it.
   */
  transport?: TransportId;
  /**
   * Credentials the cloud's own chain finds without a key (AWS profiles and instance roles,
   * Google's Application Default Credentials, `az` logins): true when one seems to be there.
   */
  ambient?: (env: Env) => boolean;
  /** Secrets besides the key that the cloud's chain reads from the environment: kept out of files like keys. */
  secretEnv?: string[];
}

export type TransportId = "bedrock" | "vertex" | "azure";

type Env = Record<string, string | undefined>;

const cloud = (id: string, name: string, api: Api, baseUrl: string, keyEnv: string[], baseUrlEnv: string[]): ProviderInfo => ({
  id,
  name,
  api,
  baseUrl,
  keyEnv,
  baseUrlEnv,
  keyless: false,
  local: false,
});

const local = (id: string, name: string, baseUrl: string, keyEnv: string[], baseUrlEnv: string[]): ProviderInfo => ({
  id,
  name,
  api: "openai-completions",
  baseUrl,
  keyEnv,
  baseUrlEnv,
  keyless: true,
  local: true,
});

/** VS Code's Copilot Chat: the API refuses a token from a client that does not name its editor and integration. */
export const COPILOT_HEADERS = {
  "editor-version": "vscode/1.99.0",
  "editor-plugin-version": "copilot-chat/0.26.7",
  "copilot-integration-id": "vscode-chat",
  "user-agent": "GitHubCopilotChat/0.26.7",
  "openai-intent": "conversation-edits",
};

export const PROVIDERS: readonly ProviderInfo[] = [
  cloud("anthropic", "Anthropic", "anthropic-messages", "https://api.anthropic.com", ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"], ["ANTHROPIC_BASE_URL"]),
  cloud("openai", "OpenAI", "openai-responses", "https://api.openai.com/v1", ["OPENAI_API_KEY"], ["OPENAI_BASE_URL"]),
  cloud("google", "Google Gemini", "google-generative-ai", "https://generativelanguage.googleapis.com", ["GEMINI_API_KEY", "GOOGLE_API_KEY"], [
    "GEMINI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
  ]),
  cloud("openrouter", "OpenRouter", "openai-completions", "https://openrouter.ai/api/v1", ["OPENROUTER_API_KEY"], ["OPENROUTER_BASE_URL"]),
  cloud("groq", "Groq", "openai-completions", "https://api.groq.com/openai/v1", ["GROQ_API_KEY"], ["GROQ_BASE_URL"]),
  cloud("xai", "xAI", "openai-completions", "https://api.x.ai/v1", ["XAI_API_KEY"], ["XAI_BASE_URL"]),
  cloud("mistral", "Mistral", "openai-completions", "https://api.mistral.ai/v1", ["MISTRAL_API_KEY"], ["MISTRAL_BASE_URL"]),
  cloud("deepseek", "DeepSeek", "openai-completions", "https://api.deepseek.com/v1", ["DEEPSEEK_API_KEY"], ["DEEPSEEK_BASE_URL"]),
  cloud("together", "Together AI", "openai-completions", "https://api.together.xyz/v1", ["TOGETHER_API_KEY"], ["TOGETHER_BASE_URL"]),
  cloud("cerebras", "Cerebras", "openai-completions", "https://api.cerebras.ai/v1", ["CEREBRAS_API_KEY"], ["CEREBRAS_BASE_URL"]),
  // Ollama is reached through its OpenAI-compatible /v1; discovery also reads its native /api/tags.
  local("ollama", "Ollama", "http://127.0.0.1:11434/v1", ["OLLAMA_API_KEY"], ["OLLAMA_BASE_URL", "OLLAMA_HOST"]),
  local("llama.cpp", "llama.cpp", "http://127.0.0.1:8080/v1", ["LLAMA_CPP_API_KEY"], ["LLAMA_CPP_BASE_URL"]),
  local("lm-studio", "LM Studio", "http://127.0.0.1:1234/v1", ["LM_STUDIO_API_KEY"], ["LM_STUDIO_BASE_URL"]),
  local("vllm", "vLLM", "http://127.0.0.1:8000/v1", ["VLLM_API_KEY"], ["VLLM_BASE_URL"]),
  // Subscriptions, used through `omp auth login` (no API key): ChatGPT's Codex backend, GitHub
  // Copilot's chat API (as VS Code's Copilot Chat calls it) and Gemini CLI's Code Assist.
  // OPENAI_CODEX_OAUTH_TOKEN: a ChatGPT access token obtained elsewhere, as the original omp takes it.
  cloud("openai-codex", "OpenAI Codex (ChatGPT)", "openai-codex-responses", "https://chatgpt.com/backend-api/codex", ["OPENAI_CODEX_OAUTH_TOKEN"], ["OPENAI_CODEX_BASE_URL"]),
  { ...cloud("github-copilot", "GitHub Copilot", "openai-completions", "https://api.githubcopilot.com", [], ["GITHUB_COPILOT_BASE_URL"]), headers: COPILOT_HEADERS },
  cloud("google-gemini-cli", "Google Gemini CLI (Code Assist)", "google-gemini-cli", "https://cloudcode-pa.googleapis.com", [], ["GOOGLE_GEMINI_CLI_BASE_URL"]),
  // Cloud accounts (core/ai/cloud/): the wire API's body, sent through the cloud's endpoint, auth
  // and framing. `{region}`, `{location}` and `{resource}` are filled from the environment when
  // the request is made; AWS_ENDPOINT_URL* are the AWS SDKs' own endpoint overrides.
  {
    ...cloud("amazon-bedrock", "Amazon Bedrock", "anthropic-messages", "https://bedrock-runtime.{region}.amazonaws.com", ["AWS_BEARER_TOKEN_BEDROCK"], [
      "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
      "AWS_ENDPOINT_URL",
    ]),
    transport: "bedrock",
    ambient: awsCredentialsPresent,
    secretEnv: ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN"],
  },
  {
    ...cloud("google-vertex", "Google Vertex AI", "google-generative-ai", "https://{location}-aiplatform.googleapis.com", ["GOOGLE_CLOUD_API_KEY"], ["GOOGLE_VERTEX_BASE_URL"]),
    transport: "vertex",
    ambient: googleCredentialsPresent,
  },
  {
    ...cloud("google-vertex-anthropic", "Claude on Google Vertex AI", "anthropic-messages", "https://{location}-aiplatform.googleapis.com", [], ["GOOGLE_VERTEX_BASE_URL"]),
    transport: "vertex",
    ambient: googleCredentialsPresent,
  },
  {
    ...cloud("azure", "Azure OpenAI (Responses)", "openai-responses", "https://{resource}.openai.azure.com/openai/v1", ["AZURE_OPENAI_API_KEY"], ["AZURE_OPENAI_BASE_URL"]),
    transport: "azure",
    ambient: azureCredentialsPresent,
    secretEnv: ["AZURE_CLIENT_SECRET"],
  },
  {
    ...cloud("azure-chat", "Azure OpenAI (Chat Completions)", "openai-completions", "https://{resource}.openai.azure.com/openai/v1", ["AZURE_OPENAI_API_KEY"], ["AZURE_OPENAI_BASE_URL"]),
    transport: "azure",
    ambient: azureCredentialsPresent,
    secretEnv: ["AZURE_CLIENT_SECRET"],
  },
  {
    ...cloud("azure-foundry", "Claude on Microsoft Foundry", "anthropic-messages", "https://{resource}.services.ai.azure.com/anthropic", ["ANTHROPIC_FOUNDRY_API_KEY"], [
      "ANTHROPIC_FOUNDRY_BASE_URL",
      "FOUNDRY_BASE_URL",
    ]),
    transport: "azure",
    ambient: azureCredentialsPresent,
    secretEnv: ["AZURE_CLIENT_SECRET"],
  },
  // The long tail: OpenAI-compatible services, each at its documented base URL and variable.
  cloud("fireworks", "Fireworks AI", "openai-completions", "https://api.fireworks.ai/inference/v1", ["FIREWORKS_API_KEY"], ["FIREWORKS_BASE_URL"]),
  cloud("nvidia", "NVIDIA NIM", "openai-completions", "https://integrate.api.nvidia.com/v1", ["NVIDIA_API_KEY"], ["NVIDIA_BASE_URL"]),
  cloud("huggingface", "Hugging Face Inference Providers", "openai-completions", "https://router.huggingface.co/v1", ["HUGGINGFACE_HUB_TOKEN", "HF_TOKEN"], ["HUGGINGFACE_BASE_URL"]),
  cloud("moonshot", "Moonshot AI (Kimi)", "openai-completions", "https://api.moonshot.ai/v1", ["MOONSHOT_API_KEY", "KIMI_API_KEY"], ["MOONSHOT_BASE_URL"]),
  cloud("zai", "Z.ai (GLM)", "openai-completions", "https://api.z.ai/api/paas/v4", ["ZAI_API_KEY", "ZHIPU_API_KEY"], ["ZAI_BASE_URL"]),
  cloud("dashscope", "Qwen (Alibaba Cloud Model Studio)", "openai-completions", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", ["DASHSCOPE_API_KEY"], ["DASHSCOPE_BASE_URL"]),
  cloud("minimax", "MiniMax", "openai-completions", "https://api.minimax.io/v1", ["MINIMAX_API_KEY"], ["MINIMAX_BASE_URL"]),
  cloud("perplexity", "Perplexity", "openai-completions", "https://api.perplexity.ai", ["PERPLEXITY_API_KEY", "PPLX_API_KEY"], ["PERPLEXITY_BASE_URL"]),
  cloud("cohere", "Cohere (compatibility API)", "openai-completions", "https://api.cohere.ai/compatibility/v1", ["COHERE_API_KEY", "CO_API_KEY"], ["COHERE_BASE_URL"]),
  cloud("vercel-ai-gateway", "Vercel AI Gateway", "openai-completions", "https://ai-gateway.vercel.sh/v1", ["AI_GATEWAY_API_KEY", "VERCEL_AI_GATEWAY_API_KEY"], ["AI_GATEWAY_BASE_URL"]),
  cloud("litellm", "LiteLLM proxy", "openai-completions", "http://localhost:4000/v1", ["LITELLM_API_KEY", "LITELLM_MASTER_KEY"], ["LITELLM_BASE_URL", "LITELLM_PROXY_URL"]),
  cloud("github-models", "GitHub Models", "openai-completions", "https://models.github.ai/inference", ["GITHUB_MODELS_TOKEN"], ["GITHUB_MODELS_BASE_URL"]),
];

const home = (env: Env) => env.HOME ?? "";
const exists = (path: string) => path !== "" && existsSync(path);

/** The machine's maker as its firmware names it: EC2 and Compute Engine hand out credentials through their metadata servers. */
let machineVendor: string | undefined;
function onCloudMachine(name: string): boolean {
  if (machineVendor === undefined) {
    try {
      machineVendor = `${readFileSync("/sys/class/dmi/id/sys_vendor", "utf8")} ${readFileSync("/sys/class/dmi/id/product_name", "utf8")}`;
    } catch {
      machineVendor = "";
    }
  }
  return machineVendor.includes(name);
}

/** AWS's chain: keys in the environment, a profile in the shared files, a container or web-identity role. */
function awsCredentialsPresent(env: Env): boolean {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) return true;
  if (env.AWS_PROFILE || env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_WEB_IDENTITY_TOKEN_FILE) return true;
  if (exists(env.AWS_SHARED_CREDENTIALS_FILE ?? `${home(env)}/.aws/credentials`) || exists(env.AWS_CONFIG_FILE ?? `${home(env)}/.aws/config`)) return true;
  return env.AWS_EC2_METADATA_DISABLED?.toLowerCase() !== "true" && (env.AWS_EC2_METADATA_SERVICE_ENDPOINT !== undefined || onCloudMachine("Amazon EC2"));
}

/** Google's Application Default Credentials: a key file, or gcloud's application-default login. */
function googleCredentialsPresent(env: Env): boolean {
  if (env.GOOGLE_APPLICATION_CREDENTIALS) return true;
  if (exists(`${env.CLOUDSDK_CONFIG ?? `${home(env)}/.config/gcloud`}/application_default_credentials.json`)) return true;
  return env.GCE_METADATA_HOST !== undefined || onCloudMachine("Google Compute Engine");
}

/** Entra ID: a service principal's secret in the environment, or an `az login`. */
function azureCredentialsPresent(env: Env): boolean {
  if (env.AZURE_CLIENT_ID && env.AZURE_TENANT_ID && env.AZURE_CLIENT_SECRET) return true;
  return exists(`${env.AZURE_CONFIG_DIR ?? `${home(env)}/.azure`}/azureProfile.json`);
}

/** The key variables or, for cloud accounts, an ambient credential: enough to offer the provider's models. */
export function hasEnvCredentials(provider: ProviderInfo, env: Env): boolean {
  return provider.keyEnv.some((name) => env[name]) || (provider.ambient?.(env) ?? false);
}

export function getProvider(id: string): ProviderInfo | undefined {
  return PROVIDERS.find((p) => p.id === id);
}

/**
 * The provider's base URL after env overrides, normalised: no trailing slash, and for the local
 * OpenAI-compatible servers a host-only value (`OLLAMA_HOST=0.0.0.0:11434`, `http://box:8080`)
 * gains a scheme and the `/v1` the adapter expects.
 */
export function providerBaseUrl(provider: ProviderInfo, env: Env = process.env): string {
  const override = provider.baseUrlEnv.map((name) => env[name]?.trim()).find((v) => v !== undefined && v !== "");
  if (override === undefined) return provider.baseUrl;
  if (!provider.local) return override.replace(/\/+$/, "");
  return localApiBase(override, new URL(provider.baseUrl).port);
}

function localApiBase(raw: string, defaultPort: string): string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  let url: URL;
  try {
    url = new URL(hasScheme ? raw : `http://${raw}`);
  } catch {
    return raw.replace(/\/+$/, "");
  }
  // A server bound to all interfaces is reached on loopback.
  if (url.hostname === "0.0.0.0" || url.hostname === "[::]") url.hostname = "127.0.0.1";
  // Ollama-style `host` or `host:port` values; a full URL is taken as written.
  if (!hasScheme && !/^[^/]*:\d+/.test(raw)) url.port = defaultPort;
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path.endsWith("/v1") ? path : `${path}/v1`}`;
}
