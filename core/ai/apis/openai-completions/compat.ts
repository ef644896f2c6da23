import type { Model, ThinkingSpec } from "../../model.ts";
import { getProvider } from "../../providers-table.ts";
import type { Context } from "../../stream.ts";

/**
 * What an OpenAI-compatible host accepts beyond the common core, derived from the provider id or
 * the base URL host so a models.yml entry pointing at a known host gets the same treatment.
 */
export interface CompletionsCompat {
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** OpenRouter treats max_tokens as a routing hint; send it only when the caller asked for a cap. */
  maxTokensOnlyWhenAsked: boolean;
  /** How the thinking level is sent: `reasoning_effort`, OpenRouter's `reasoning` object, or not at all. */
  thinkingFormat: "reasoning_effort" | "openrouter" | "none";
  /** How a model without its own spec takes the level on this host. */
  thinking: ThinkingSpec;
  /** DeepSeek answers 400 unless the reasoning of earlier tool-call turns is sent back verbatim. */
  replayReasoningContent: boolean;
  /** Mistral wants `name` on tool results and tool-call ids of exactly 9 alphanumerics. */
  mistral: boolean;
  /** `stream_options: {include_usage}`: Mistral answers 422 to it (and reports usage anyway). */
  streamOptions: boolean;
  /**
   * Anthropic models behind an OpenAI-compatible route (OpenRouter, a LiteLLM proxy) cache only
   * what is marked with `cache_control`: without the marks every turn is billed uncached.
   */
  cacheControl: boolean;
  /** OpenRouter returns `reasoning_details` (signed, for Anthropic) and wants them back on later turns. */
  reasoningDetails: boolean;
  /** GitHub Copilot: takes no reasoning parameters and wants the per-request headers of {@link copilotHeaders}. */
  copilot: boolean;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return "";
  }
}

export function completionsCompat(model: Model): CompletionsCompat {
  const host = hostOf(model.baseUrl);
  const is = (provider: string, domain: string) => model.provider === provider || host === domain || host.endsWith(`.${domain}`);
  const openai = is("openai", "openai.com");
  const openrouter = is("openrouter", "openrouter.ai");
  const deepseek = is("deepseek", "deepseek.com");
  const mistral = is("mistral", "mistral.ai");
  const xai = is("xai", "x.ai");
  const copilot = is("github-copilot", "githubcopilot.com");

  let thinkingFormat: CompletionsCompat["thinkingFormat"] = model.reasoning ? "reasoning_effort" : "none";
  if (openrouter) thinkingFormat = "openrouter";
  else if (copilot) thinkingFormat = "none";
  // DeepSeek and Mistral pick reasoning by model id; the first Grok 4 rejects reasoning_effort,
  // which grok-3-mini and the Grok 4.x models (grok-4.1, grok-4.3, ...) take. A model that states
  // how it thinks is taken at its word.
  else if (!model.thinking && (deepseek || mistral || (xai && !xaiTakesEffort(model.id)))) thinkingFormat = "none";

  return {
    maxTokensField: openai ? "max_completion_tokens" : "max_tokens",
    maxTokensOnlyWhenAsked: openrouter,
    thinkingFormat,
    thinking: {
      control: "effort",
      // `minimal` exists only on OpenAI's own GPT-5 family; elsewhere it becomes `low`.
      efforts: openai ? ["minimal", "low", "medium", "high"] : ["low", "medium", "high"],
      // OpenRouter may think by default on reasoning models, so "off" has to be said explicitly.
      off: openrouter ? "disable" : "omit",
      fixedSampling: false,
    },
    replayReasoningContent: deepseek,
    mistral,
    streamOptions: !mistral,
    cacheControl: /(^|\/)claude|anthropic\//i.test(model.id),
    reasoningDetails: openrouter,
    copilot,
  };
}

/**
 * Where a Copilot token is served: the token names its plan's proxy (`proxy-ep=proxy.business.
 * githubcopilot.com`), whose API host is the `api.` twin. Only the default host is replaced; a
 * base the user (or the login's `endpoints.api`) chose stays.
 */
export function copilotBaseUrl(model: Model, token: string | undefined): string {
  if (model.baseUrl !== getProvider("github-copilot")?.baseUrl) return model.baseUrl;
  const proxy = /(?:^|;)proxy-ep=([a-z0-9.-]+)(?:;|$)/i.exec(token ?? "")?.[1];
  return proxy ? `https://${proxy.replace(/^proxy\./, "api.")}` : model.baseUrl;
}

/**
 * What VS Code's Copilot Chat says about each request: who started it (a request that follows
 * tool results is the agent's, which Copilot does not bill as a premium request) and whether it
 * carries images (the API refuses images without the vision header).
 */
export function copilotHeaders(context: Context): Record<string, string> {
  const last = context.messages[context.messages.length - 1];
  const headers: Record<string, string> = { "x-initiator": last?.role === "user" ? "user" : "agent" };
  const images = context.messages.some((m) => m.role !== "assistant" && typeof m.content !== "string" && m.content.some((c) => c.type === "image"));
  if (images) headers["copilot-vision-request"] = "true";
  return headers;
}

function xaiTakesEffort(id: string): boolean {
  return id.includes("grok-3-mini") || /^grok-4[.-]\d/.test(id);
}

/** Deterministic, so a call and its result map to the same id. */
export function mistralToolId(id: string): string {
  if (/^[a-zA-Z0-9]{9}$/.test(id)) return id;
  return Bun.hash(id).toString(36).padStart(9, "0").slice(-9);
}
