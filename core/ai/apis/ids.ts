/**
 * The wire APIs omp speaks, each in its folder beside this file. OpenAI-compatible services use
 * `openai-completions`; the subscription backends that are not their public API's twin have their
 * own: ChatGPT's Codex backend (`openai-codex-responses`) and Google's Code Assist
 * (`google-gemini-cli`); Amazon Bedrock's Converse (`bedrock-converse`) reaches the models it hosts
 * besides Claude. Plain values: the start-up path and zod schemas read them without the adapters.
 */
export const APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai", "openai-codex-responses", "google-gemini-cli", "bedrock-converse"] as const;
export type Api = (typeof APIS)[number];
