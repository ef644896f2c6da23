import type { ModelCost } from "./model.ts";

/** A built-in model; provider, api and base URL come from the provider table. */
export interface CatalogModel {
  id: string;
  name: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  contextWindow: number;
  maxTokens: number;
  /** USD per million tokens. */
  cost: ModelCost;
}

const TEXT: ("text" | "image")[] = ["text"];
const VISION: ("text" | "image")[] = ["text", "image"];

const m = (
  id: string,
  name: string,
  reasoning: boolean,
  input: ("text" | "image")[],
  contextWindow: number,
  maxTokens: number,
  [inputCost, output, cacheRead = 0, cacheWrite = 0]: [number, number, number?, number?],
): CatalogModel => ({ id, name, reasoning, input, contextWindow, maxTokens, cost: { input: inputCost, output, cacheRead, cacheWrite } });

/** Public list prices at the standard tier; long-context surcharges are not modelled. */
export const CATALOG: Record<string, CatalogModel[]> = {
  anthropic: [
    m("claude-sonnet-4-5", "Claude Sonnet 4.5", true, VISION, 200_000, 64_000, [3, 15, 0.3, 3.75]),
    m("claude-opus-4-5", "Claude Opus 4.5", true, VISION, 200_000, 64_000, [5, 25, 0.5, 6.25]),
    m("claude-opus-4-1", "Claude Opus 4.1", true, VISION, 200_000, 32_000, [15, 75, 1.5, 18.75]),
    m("claude-haiku-4-5", "Claude Haiku 4.5", true, VISION, 200_000, 64_000, [1, 5, 0.1, 1.25]),
    m("claude-sonnet-4-0", "Claude Sonnet 4", true, VISION, 200_000, 64_000, [3, 15, 0.3, 3.75]),
    m("claude-3-5-haiku-latest", "Claude Haiku 3.5", false, VISION, 200_000, 8_192, [0.8, 4, 0.08, 1]),
  ],
  openai: [
    m("gpt-5", "GPT-5", true, VISION, 400_000, 128_000, [1.25, 10, 0.125]),
    m("gpt-5-mini", "GPT-5 mini", true, VISION, 400_000, 128_000, [0.25, 2, 0.025]),
    m("gpt-5-nano", "GPT-5 nano", true, VISION, 400_000, 128_000, [0.05, 0.4, 0.005]),
    m("gpt-5-codex", "GPT-5 Codex", true, VISION, 400_000, 128_000, [1.25, 10, 0.125]),
    m("gpt-4.1", "GPT-4.1", false, VISION, 1_047_576, 32_768, [2, 8, 0.5]),
    m("gpt-4.1-mini", "GPT-4.1 mini", false, VISION, 1_047_576, 32_768, [0.4, 1.6, 0.1]),
    m("o4-mini", "o4-mini", true, VISION, 200_000, 100_000, [1.1, 4.4, 0.275]),
    m("o3", "o3", true, VISION, 200_000, 100_000, [2, 8, 0.5]),
  ],
  google: [
    m("gemini-2.5-pro", "Gemini 2.5 Pro", true, VISION, 1_048_576, 65_536, [1.25, 10, 0.31]),
    m("gemini-2.5-flash", "Gemini 2.5 Flash", true, VISION, 1_048_576, 65_536, [0.3, 2.5, 0.075]),
    m("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", true, VISION, 1_048_576, 65_536, [0.1, 0.4, 0.025]),
  ],
  openrouter: [
    m("anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5 (OpenRouter)", true, VISION, 1_000_000, 64_000, [3, 15, 0.3, 3.75]),
    m("openai/gpt-5", "GPT-5 (OpenRouter)", true, VISION, 400_000, 128_000, [1.25, 10, 0.125]),
    m("google/gemini-2.5-pro", "Gemini 2.5 Pro (OpenRouter)", true, VISION, 1_048_576, 65_536, [1.25, 10, 0.31]),
    m("qwen/qwen3-coder", "Qwen3 Coder 480B (OpenRouter)", false, TEXT, 262_144, 65_536, [0.22, 0.95]),
  ],
  groq: [
    m("openai/gpt-oss-120b", "GPT-OSS 120B (Groq)", true, TEXT, 131_072, 65_536, [0.15, 0.75]),
    m("openai/gpt-oss-20b", "GPT-OSS 20B (Groq)", true, TEXT, 131_072, 65_536, [0.1, 0.5]),
    m("moonshotai/kimi-k2-instruct-0905", "Kimi K2 (Groq)", false, TEXT, 262_144, 16_384, [1, 3]),
    m("llama-3.3-70b-versatile", "Llama 3.3 70B (Groq)", false, TEXT, 131_072, 32_768, [0.59, 0.79]),
  ],
  xai: [
    m("grok-4", "Grok 4", true, VISION, 256_000, 64_000, [3, 15, 0.75]),
    m("grok-code-fast-1", "Grok Code Fast 1", true, TEXT, 256_000, 10_000, [0.2, 1.5, 0.02]),
    m("grok-3-mini", "Grok 3 Mini", true, TEXT, 131_072, 8_192, [0.3, 0.5, 0.075]),
  ],
  mistral: [
    m("mistral-large-latest", "Mistral Large", false, VISION, 131_072, 16_384, [2, 6]),
    m("mistral-medium-latest", "Mistral Medium", false, VISION, 131_072, 16_384, [0.4, 2]),
    m("devstral-medium-latest", "Devstral Medium", false, TEXT, 131_072, 16_384, [0.4, 2]),
    m("codestral-latest", "Codestral", false, TEXT, 256_000, 16_384, [0.3, 0.9]),
  ],
  deepseek: [
    m("deepseek-chat", "DeepSeek V3.2", false, TEXT, 131_072, 8_192, [0.28, 0.42, 0.028]),
    m("deepseek-reasoner", "DeepSeek V3.2 (thinking)", true, TEXT, 131_072, 65_536, [0.28, 0.42, 0.028]),
  ],
  together: [
    m("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "Qwen3 Coder 480B (Together)", false, TEXT, 262_144, 65_536, [2, 2]),
    m("openai/gpt-oss-120b", "GPT-OSS 120B (Together)", true, TEXT, 131_072, 65_536, [0.15, 0.6]),
    m("meta-llama/Llama-3.3-70B-Instruct-Turbo", "Llama 3.3 70B (Together)", false, TEXT, 131_072, 32_768, [0.88, 0.88]),
  ],
  cerebras: [
    m("gpt-oss-120b", "GPT-OSS 120B (Cerebras)", true, TEXT, 131_072, 32_768, [0.35, 0.75]),
    m("qwen-3-coder-480b", "Qwen3 Coder 480B (Cerebras)", false, TEXT, 131_072, 32_768, [2, 2]),
    m("llama-3.3-70b", "Llama 3.3 70B (Cerebras)", false, TEXT, 131_072, 32_768, [0.85, 1.2]),
  ],
};
