/**
 * Whether a failed request's error says the conversation no longer fits the model's context
 * window. Providers report it in their own words (and a local server in yet others); the agent
 * answers it by compacting and trying again, so a long session does not end on a 400.
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  /prompt is too long/i,
  // OpenAI, OpenRouter, vLLM, DeepSeek: "maximum context length is 128000 tokens", code context_length_exceeded
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /longer than the model'?s context length/i,
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)"
  /input token count.*exceeds the maximum/i,
  // OpenAI Responses, xAI, Groq: "exceeds the context window", "reduce the length of the messages"
  /exceeds? the context window/i,
  /reduce the length of the messages/i,
  // Mistral: "Prompt contains 140000 tokens ... too large for model with 131072 maximum context length"
  /too large for model with \d+ maximum context length/i,
  // llama.cpp and LM Studio: "the request exceeds the available context size", "greater than the context length"
  /exceeds the available context size/i,
  /greater than the context length/i,
  // Ollama: "prompt too long; exceeded max context length"
  /exceeded max context length/i,
];

export function isContextOverflow(errorMessage: string | undefined): boolean {
  if (!errorMessage) return false;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(errorMessage));
}
