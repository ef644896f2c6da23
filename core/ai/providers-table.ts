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
}

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
];

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
