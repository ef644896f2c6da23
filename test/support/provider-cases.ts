// One provider of each wire API, configured as a user would, for e2e tests and benches (no bun:test here,
// so bench scripts can import it).

export type ProviderApi = "anthropic-messages" | "openai-completions" | "openai-responses" | "google-generative-ai";

/** One way of reaching the stand-in: a provider of each wire API, configured as a user would. */
export interface ProviderCase {
  api: ProviderApi;
  /** The `--model` argument. */
  model: string;
  /** The API key the run uses (a distinctive string, so it can be searched for on disk). */
  key: string;
  /** SSE events the stand-in sends before the first content (a cut there loses no output). */
  preamble: number;
  /** SSE events up to and including the first text delta of a reply whose text is all it has. */
  firstText: number;
  env(url: string): Record<string, string>;
}

/** Not shaped like any known token, so only omp's knowledge of the key in use can keep it off the disk. */
const secret = (name: string) => `omptest_${name}_${crypto.randomUUID().replaceAll("-", "")}`;

export function providerCases(): ProviderCase[] {
  return [
    {
      api: "anthropic-messages",
      model: "anthropic/claude-sonnet-5-5",
      key: secret("ant"),
      preamble: 2,
      firstText: 4,
      env(url) {
        return { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: this.key };
      },
    },
    {
      api: "openai-responses",
      model: "openai/gpt-6.2-sol",
      key: secret("oai"),
      preamble: 2,
      firstText: 5,
      env(url) {
        return { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: this.key };
      },
    },
    {
      api: "google-generative-ai",
      model: "google/gemini-4-carbon",
      key: secret("gem"),
      preamble: 0,
      firstText: 1,
      env(url) {
        return { GEMINI_BASE_URL: url, GEMINI_API_KEY: this.key };
      },
    },
    {
      api: "openai-completions",
      model: "openrouter/qwen/qwen3-coder",
      key: secret("orr"),
      preamble: 1,
      firstText: 2,
      env(url) {
        return { OPENROUTER_BASE_URL: `${url}/v1`, OPENROUTER_API_KEY: this.key };
      },
    },
  ];
}
