export interface ListedModel {
  id: string;
  contextWindow?: number;
}

/** Which server's `/v1/models` shape to mimic; they differ only in where the context size goes. */
export type ListingStyle = "openai" | "vllm" | "llama.cpp";

export function modelsListing(models: ListedModel[], style: ListingStyle): unknown {
  return {
    object: "list",
    data: models.map((m) => {
      const entry: Record<string, unknown> = { id: m.id, object: "model", created: 1_700_000_000, owned_by: style === "llama.cpp" ? "llamacpp" : "standin" };
      if (m.contextWindow !== undefined) {
        if (style === "vllm") entry.max_model_len = m.contextWindow;
        else if (style === "llama.cpp") entry.meta = { vocab_type: 2, n_vocab: 151_936, n_ctx_train: m.contextWindow, n_embd: 2048, n_params: 1_500_000_000 };
      }
      return entry;
    }),
  };
}

/** Ollama's native listing of pulled models. */
export function ollamaTags(models: ListedModel[]): unknown {
  return {
    models: models.map((m) => ({
      name: m.id,
      model: m.id,
      modified_at: "2025-01-01T00:00:00Z",
      size: 1_000_000_000,
      digest: "0".repeat(64),
      details: { parent_model: "", format: "gguf", family: "standin", families: ["standin"], parameter_size: "1B", quantization_level: "Q4_K_M" },
    })),
  };
}

/** Anthropic's `GET /v1/models` page (one page: has_more false). */
export function anthropicListing(models: ListedModel[]): unknown {
  const data = models.map((m) => ({ type: "model", id: m.id, display_name: m.id, created_at: "2026-01-01T00:00:00Z", ...(m.contextWindow ? { max_input_tokens: m.contextWindow } : {}) }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** Gemini's `GET /v1beta/models`. */
export function geminiListing(models: ListedModel[]): unknown {
  return {
    models: models.map((m) => ({
      name: `models/${m.id}`,
      version: "001",
      displayName: m.id,
      inputTokenLimit: m.contextWindow ?? 1_048_576,
      outputTokenLimit: 65_536,
      supportedGenerationMethods: ["generateContent", "countTokens"],
    })),
  };
}
