// The real Claude Code and Codex CLIs (npm devDependencies), as tests run them against a stand-in.
import { join } from "node:path";
import { ROOT } from "./omp.ts";

export const CLAUDE = join(ROOT, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
export const CODEX = join(ROOT, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex");

/** `codex exec` of `prompt` on `model`, through a Responses provider at `baseUrl` whose key is in the variable `envKey`; no approvals, no sandbox, no retries. */
export function codexExec(baseUrl: string, envKey: string, model: string, prompt: string): string[] {
  return [
    CODEX,
    "exec",
    "--skip-git-repo-check",
    "--json",
    "--dangerously-bypass-approvals-and-sandbox",
    "-m",
    model,
    "-c",
    "model_provider=omp",
    "-c",
    `model_providers.omp={name="omp",base_url="${baseUrl}",env_key="${envKey}",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
    prompt,
  ];
}
