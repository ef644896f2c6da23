import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The upstream APIs behind the gateway, each a models.yml provider pointing at the stand-in. */
export const UPSTREAMS = [
  { api: "anthropic-messages", provider: "up-anthropic", model: "claude-up" },
  { api: "openai-completions", provider: "up-chat", model: "chat-up" },
  { api: "openai-responses", provider: "up-responses", model: "resp-up" },
  { api: "google-generative-ai", provider: "up-gemini", model: "gemini-up" },
] as const;
export type UpstreamCase = (typeof UPSTREAMS)[number];

/** models.yml as a user would write it: keys from env var names, the stand-in as each base URL. */
export function writeUpstreamModels(home: string, standinUrl: string): void {
  const dir = join(home, ".omp", "agent");
  mkdirSync(dir, { recursive: true });
  const providers = UPSTREAMS.map(
    (u) => `  ${u.provider}:
    baseUrl: ${u.api === "openai-completions" || u.api === "openai-responses" ? `${standinUrl}/v1` : standinUrl}
    api: ${u.api}
    apiKey: UPSTREAM_KEY
    models:
      - id: ${u.model}
        reasoning: true
        input: [text, image]
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }`,
  ).join("\n");
  writeFileSync(join(dir, "models.yml"), `providers:\n${providers}\n`);
}
