import type { Credential } from "../credential.ts";

/**
 * Headers a subscription backend wants beside the bearer token: which ChatGPT account the Codex
 * token is for, and the editor identity Copilot's API checks. None of them is secret.
 */
export function subscriptionHeaders(provider: string, credential: Credential | undefined): Record<string, string> | undefined {
  if (provider === "openai-codex") {
    const account = credential?.type === "oauth" ? credential.accountId : undefined;
    return { "OpenAI-Beta": "responses=experimental", originator: "codex_cli_rs", ...(account ? { "chatgpt-account-id": account } : {}) };
  }
  if (provider === "github-copilot") {
    return { "Editor-Version": "vscode/1.99.0", "Editor-Plugin-Version": "copilot-chat/0.26.7", "Copilot-Integration-Id": "vscode-chat", "Openai-Intent": "conversation-edits" };
  }
  return undefined;
}
