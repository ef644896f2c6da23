import type { Api, ModelCost, ThinkingSpec } from "./model.ts";

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
  /** Absent: the api's usual way (see the adapters). */
  thinking?: ThinkingSpec;
  /** Absent: the provider's wire API; Bedrock serves Claude on Anthropic's and the rest on Converse. */
  api?: Api;
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
  thinking?: ThinkingSpec,
): CatalogModel => ({ id, name, reasoning, input, contextWindow, maxTokens, cost: { input: inputCost, output, cacheRead, cacheWrite }, ...(thinking && { thinking }) });

const effort = (efforts: string[], off: ThinkingSpec["off"], fixedSampling = false): ThinkingSpec => ({ control: "effort", efforts, off, fixedSampling });

/**
 * Claude 5 and later: adaptive thinking with output_config.effort (budget_tokens is a 400), and no
 * temperature, top_p or top_k. How "off" is said differs per model.
 * https://platform.claude.com/docs/en/build-with-claude/effort
 * https://platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
 */
const CLAUDE_5_EFFORTS = ["low", "medium", "high", "xhigh", "max"];
const claude5 = (off: ThinkingSpec["off"]) => effort(CLAUDE_5_EFFORTS, off, true);
/** Claude 4.5 and earlier know only manual extended thinking, off unless asked for. */
const EXTENDED: ThinkingSpec = { control: "budget", off: "omit", fixedSampling: false };

/** GPT-6.x: https://developers.openai.com/api/docs/models; `none` (off) only where a model lists it. */
const GPT_6_EFFORTS = ["low", "medium", "high", "xhigh", "max"];
/** GPT-5 (before 5.1): no `none`, so its least is `minimal`. */
const GPT_5 = effort(["minimal", "low", "medium", "high"], "never");

/** Gemini 3 and later take thinkingLevel and cannot turn thinking off; each model lists its own levels. */
const geminiLevels = (levels: string[]) => effort(levels, "never");

/** Public list prices at the standard tier; long-context surcharges are not modelled. */
export const CATALOG: Record<string, CatalogModel[]> = {
  // https://platform.claude.com/docs/en/about-claude/models/overview, .../about-claude/pricing and
  // .../about-claude/model-deprecations. Haiku 5.5's price is its tier for prompts up to 100K tokens.
  anthropic: [
    m("claude-opus-5-5", "Claude Opus 5.5", true, VISION, 1_000_000, 128_000, [4, 20, 0.2, 5], claude5("never")),
    m("claude-fable-5-2", "Claude Fable 5.2", true, VISION, 1_000_000, 128_000, [8, 40, 0.2, 10], claude5("never")),
    m("claude-sonnet-5-5", "Claude Sonnet 5.5", true, VISION, 1_000_000, 128_000, [2, 10, 0.2, 2.5], claude5("between-tools")),
    m("claude-haiku-5-5", "Claude Haiku 5.5", true, VISION, 1_000_000, 128_000, [0.1, 0.5, 0.01, 0.125], claude5("disable")),
    m("claude-opus-5", "Claude Opus 5", true, VISION, 1_000_000, 128_000, [5, 25, 0.5, 6.25], claude5("disable")),
    m("claude-sonnet-5", "Claude Sonnet 5", true, VISION, 1_000_000, 128_000, [2, 10, 0.2, 2.5], claude5("disable")),
    m("claude-opus-4-5", "Claude Opus 4.5", true, VISION, 200_000, 64_000, [5, 25, 0.5, 6.25], EXTENDED),
    m("claude-haiku-4-5", "Claude Haiku 4.5", true, VISION, 200_000, 64_000, [1, 5, 0.1, 1.25], EXTENDED),
    // Deprecated: retires 2026-11-30.
    m("claude-sonnet-4-5", "Claude Sonnet 4.5", true, VISION, 200_000, 64_000, [3, 15, 0.3, 3.75], EXTENDED),
  ],
  // https://developers.openai.com/api/docs/models/<id>, .../docs/deprecations. Cache writes are
  // billed (1.25x input) from GPT-6 on.
  openai: [
    m("gpt-6.2-sol", "GPT-6.2 Sol", true, VISION, 1_050_000, 128_000, [2, 10, 0.1, 2.5], effort(GPT_6_EFFORTS, "never")),
    m("gpt-6.2-astra", "GPT-6.2 Astra", true, VISION, 1_050_000, 128_000, [8, 40, 0.4, 10], effort(GPT_6_EFFORTS, "never")),
    m("gpt-6.1-sol", "GPT-6.1 Sol", true, VISION, 1_050_000, 128_000, [2, 10, 0.1, 2.5], effort(GPT_6_EFFORTS, "never")),
    m("gpt-6.1-terra", "GPT-6.1 Terra", true, VISION, 1_050_000, 128_000, [1, 5, 0.05, 1.25], effort(GPT_6_EFFORTS, "disable")),
    m("gpt-6-luna", "GPT-6 Luna", true, VISION, 1_050_000, 128_000, [0.1, 0.5, 0.01, 0.125], effort(GPT_6_EFFORTS, "disable")),
    // Deprecated: gpt-5 and gpt-5-mini shut down 2026-12-11, gpt-4.1 on 2027-01-14.
    m("gpt-5", "GPT-5", true, VISION, 400_000, 128_000, [1.25, 10, 0.125], GPT_5),
    m("gpt-5-mini", "GPT-5 mini", true, VISION, 400_000, 128_000, [0.25, 2, 0.025], GPT_5),
    m("gpt-4.1", "GPT-4.1", false, VISION, 1_047_576, 32_768, [2, 8, 0.5]),
  ],
  // https://ai.google.dev/gemini-api/docs/thinking and .../deprecations; Gemini 4's limits and
  // levels from Google Cloud's model pages. Gemini 4 Carbon at its list price from 2026-12-01.
  google: [
    m("gemini-4-carbon", "Gemini 4 Carbon", true, VISION, 1_048_576, 65_536, [4, 20, 0.2], geminiLevels(["low", "medium", "high"])),
    m("gemini-4-hydrogen", "Gemini 4 Hydrogen", true, VISION, 1_048_576, 65_536, [1.5, 7.5, 0.075], geminiLevels(["low", "medium", "high", "xhigh"])),
    m("gemini-3.8-flash", "Gemini 3.8 Flash", true, VISION, 1_048_576, 65_536, [0.75, 3.75, 0.075], geminiLevels(["low", "medium", "high"])),
    // Deprecated: gemini-2.5-pro and gemini-2.5-flash shut down 2026-12-01. 2.5 takes thinkingBudget.
    m("gemini-2.5-pro", "Gemini 2.5 Pro", true, VISION, 1_048_576, 65_536, [1.25, 10, 0.31]),
    m("gemini-2.5-flash", "Gemini 2.5 Flash", true, VISION, 1_048_576, 65_536, [0.3, 2.5, 0.075]),
    m("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", true, VISION, 1_048_576, 65_536, [0.1, 0.4, 0.025]),
  ],
  openrouter: [
    // https://openrouter.ai/docs/cookbook/evaluate-and-optimize/model-migrations/opus-5-5: always thinks, effort only.
    m("anthropic/claude-opus-5.5", "Claude Opus 5.5 (OpenRouter)", true, VISION, 1_000_000, 128_000, [4, 20, 0.2, 5], effort(["low", "medium", "high", "xhigh"], "never", true)),
    m("anthropic/claude-sonnet-4.5", "Claude Sonnet 4.5 (OpenRouter)", true, VISION, 1_000_000, 64_000, [3, 15, 0.3, 3.75]),
    m("openai/gpt-5", "GPT-5 (OpenRouter)", true, VISION, 400_000, 128_000, [1.25, 10, 0.125]),
    m("google/gemini-2.5-pro", "Gemini 2.5 Pro (OpenRouter)", true, VISION, 1_048_576, 65_536, [1.25, 10, 0.31]),
    m("qwen/qwen3-coder", "Qwen3 Coder 480B (OpenRouter)", false, TEXT, 262_144, 65_536, [0.22, 0.95]),
  ],
  groq: [
    m("openai/gpt-oss-120b", "GPT-OSS 120B (Groq)", true, TEXT, 131_072, 65_536, [0.15, 0.75]),
    m("openai/gpt-oss-20b", "GPT-OSS 20B (Groq)", true, TEXT, 131_072, 65_536, [0.1, 0.5]),
    m("moonshotai/kimi-k2-instruct-0905", "Kimi K2 (Groq)", false, TEXT, 262_144, 16_384, [1, 3]),
  ],
  // https://docs.x.ai/developers/grok-4-5 (released 2026-07-09): reasoning_effort low/medium/high.
  // grok-4 and grok-code-fast-1 retired 2026-05-15. grok-4.3's price is unconfirmed (reported at
  // about 60% of grok-4.5's) and so are both models' output caps.
  xai: [
    m("grok-4.5", "Grok 4.5", true, VISION, 500_000, 64_000, [2, 6, 0.5], effort(["low", "medium", "high"], "never")),
    m("grok-4.3", "Grok 4.3", true, VISION, 1_000_000, 64_000, [1.25, 3.75, 0.3], effort(["low", "medium", "high"], "never")),
    m("grok-3-mini", "Grok 3 Mini", true, TEXT, 131_072, 8_192, [0.3, 0.5, 0.075]),
  ],
  mistral: [
    m("mistral-large-latest", "Mistral Large", false, VISION, 131_072, 16_384, [2, 6]),
    m("mistral-medium-latest", "Mistral Medium", false, VISION, 131_072, 16_384, [0.4, 2]),
    m("devstral-medium-latest", "Devstral Medium", false, TEXT, 131_072, 16_384, [0.4, 2]),
    m("codestral-latest", "Codestral", false, TEXT, 256_000, 16_384, [0.3, 0.9]),
  ],
  // https://api-docs.deepseek.com: deepseek-chat and deepseek-reasoner retired 2026-07-24;
  // deepseek-flash is V4.1 Flash, and deepseek-v4-pro is served by it (at its price) until V4.1
  // Pro ships. Prices are V4 Flash's list prices (cache hit, miss, output); V4.1's are unconfirmed.
  deepseek: [
    m("deepseek-flash", "DeepSeek V4.1 Flash", true, TEXT, 1_000_000, 384_000, [0.14, 0.28, 0.0028]),
    m("deepseek-v4-pro", "DeepSeek V4 Pro", true, TEXT, 1_000_000, 384_000, [0.14, 0.28, 0.0028]),
  ],
  together: [
    m("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "Qwen3 Coder 480B (Together)", false, TEXT, 262_144, 65_536, [2, 2]),
    m("openai/gpt-oss-120b", "GPT-OSS 120B (Together)", true, TEXT, 131_072, 65_536, [0.15, 0.6]),
    m("meta-llama/Llama-3.3-70B-Instruct-Turbo", "Llama 3.3 70B (Together)", false, TEXT, 131_072, 32_768, [0.88, 0.88]),
  ],
  cerebras: [
    m("gpt-oss-120b", "GPT-OSS 120B (Cerebras)", true, TEXT, 131_072, 32_768, [0.35, 0.75]),
    // https://inference-docs.cerebras.ai/support/deprecation: qwen-3-coder-480b and llama-3.3-70b are gone.
    m("zai-glm-4.7", "Z.ai GLM 4.7 (Cerebras)", true, TEXT, 131_072, 40_960, [2.25, 2.75]),
  ],
  // Subscription models (no per-token price): what Codex CLI, Copilot Chat and Gemini CLI offer.
  // The Codex backend caps input at 272K and refuses efforts a model lacks ("minimal" on codex
  // models, "none" before GPT-5.2); GPT-5.2 and later general models can turn reasoning off.
  "openai-codex": [
    m("gpt-5.5", "GPT-5.5 (Codex)", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "disable")),
    m("gpt-5.4", "GPT-5.4 (Codex)", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "disable")),
    m("gpt-5.4-mini", "GPT-5.4 mini (Codex)", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "disable")),
    m("gpt-5.3-codex", "GPT-5.3 Codex", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "never")),
    m("gpt-5.2-codex", "GPT-5.2 Codex", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "never")),
    m("gpt-5.2", "GPT-5.2 (Codex)", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "disable")),
    m("gpt-5.1-codex-max", "GPT-5.1 Codex Max", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high", "xhigh"], "never")),
    m("gpt-5.1-codex", "GPT-5.1 Codex", true, VISION, 272_000, 128_000, [0, 0], effort(["low", "medium", "high"], "never")),
    m("gpt-5.1-codex-mini", "GPT-5.1 Codex mini", true, VISION, 272_000, 128_000, [0, 0], effort(["medium", "high"], "never")),
  ],
  // Code Assist serves the Gemini models Gemini CLI offers; 2.5 takes thinkingBudget.
  "google-gemini-cli": [
    m("gemini-3-pro-preview", "Gemini 3 Pro (Gemini CLI)", true, VISION, 1_048_576, 65_536, [0, 0], geminiLevels(["low", "high"])),
    m("gemini-3-flash-preview", "Gemini 3 Flash (Gemini CLI)", true, VISION, 1_048_576, 65_536, [0, 0], geminiLevels(["minimal", "low", "medium", "high"])),
    m("gemini-2.5-pro", "Gemini 2.5 Pro (Gemini CLI)", true, VISION, 1_048_576, 65_536, [0, 0]),
    m("gemini-2.5-flash", "Gemini 2.5 Flash (Gemini CLI)", true, VISION, 1_048_576, 65_536, [0, 0]),
  ],
  "github-copilot": [
    m("gpt-4.1", "GPT-4.1 (Copilot)", false, VISION, 128_000, 16_384, [0, 0]),
    m("gpt-5-mini", "GPT-5 mini (Copilot)", true, VISION, 128_000, 64_000, [0, 0]),
    m("claude-sonnet-4.5", "Claude Sonnet 4.5 (Copilot)", true, VISION, 128_000, 16_000, [0, 0]),
  ],
};

/**
 * Cloud accounts serve the same models under their own names and prices: Bedrock's model ids
 * (`anthropic.<id>-v1:0`; an inference profile such as `us.anthropic.…` goes through models.yml),
 * Vertex AI's publisher ids, Azure's deployments (named after their model unless
 * AZURE_OPENAI_DEPLOYMENT_NAME_MAP says otherwise) and Foundry's.
 */
const converse = (model: CatalogModel): CatalogModel => ({ ...model, api: "bedrock-converse" });
CATALOG["amazon-bedrock"] = [
  ...CATALOG.anthropic!.map((model) => ({ ...model, id: `anthropic.${model.id}-v1:0` })),
  // Bedrock's own and hosted models, through Converse; us-east-1 on-demand prices.
  converse(m("amazon.nova-premier-v1:0", "Amazon Nova Premier", false, VISION, 1_000_000, 32_000, [2.5, 12.5])),
  converse(m("amazon.nova-pro-v1:0", "Amazon Nova Pro", false, VISION, 300_000, 10_000, [0.8, 3.2, 0.2])),
  converse(m("meta.llama4-maverick-17b-instruct-v1:0", "Llama 4 Maverick", false, VISION, 1_000_000, 8_192, [0.24, 0.97])),
  converse(m("mistral.mistral-large-2407-v1:0", "Mistral Large (24.07)", false, TEXT, 128_000, 8_192, [2, 6])),
  converse(m("deepseek.r1-v1:0", "DeepSeek-R1", true, TEXT, 128_000, 32_768, [1.35, 5.4])),
  converse(m("openai.gpt-oss-120b-1:0", "gpt-oss-120b", true, TEXT, 128_000, 32_768, [0.15, 0.6])),
];
CATALOG["google-vertex"] = CATALOG.google!.map((model) => ({ ...model }));
CATALOG["google-vertex-anthropic"] = CATALOG.anthropic!.map((model) => ({ ...model }));
CATALOG.azure = CATALOG.openai!.map((model) => ({ ...model }));
CATALOG["azure-chat"] = CATALOG.openai!.map((model) => ({ ...model }));
CATALOG["azure-foundry"] = CATALOG.anthropic!.map((model) => ({ ...model }));
