// Request shaping for the subscription backends that has no e2e path on loopback: Copilot's plan
// host named in its token (an https host), and the pure shaping rules the e2e tests rely on.
import { describe, expect, test } from "bun:test";
import { builtinModels } from "../../../core/ai/index.ts";
import type { Message } from "../../../core/ai/messages.ts";
import { codeAssistKey, parseCodeAssistKey } from "../../../core/ai/apis/google-gemini-cli/key.ts";
import { copilotBaseUrl, copilotHeaders } from "../../../core/ai/apis/openai-completions/compat.ts";
import { chatgptAccountId, codexRequestBody } from "../../../core/ai/apis/openai-codex-responses/stream.ts";

const model = (provider: string, id: string) => builtinModels({}).find((m) => m.provider === provider && m.id === id)!;
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });

describe("GitHub Copilot", () => {
  const copilot = model("github-copilot", "gpt-4.1");

  test("a business token's proxy names the API host; the default host stays for an individual token or a chosen base", () => {
    expect(copilotBaseUrl(copilot, "tid=abc;exp=1;sku=copilot_business;proxy-ep=proxy.business.githubcopilot.com;8kp=1")).toBe("https://api.business.githubcopilot.com");
    expect(copilotBaseUrl(copilot, "tid=abc;exp=1;sku=free")).toBe("https://api.githubcopilot.com");
    expect(copilotBaseUrl({ ...copilot, baseUrl: "http://127.0.0.1:9/copilot" }, "tid=a;proxy-ep=proxy.business.githubcopilot.com")).toBe("http://127.0.0.1:9/copilot");
  });

  test("the initiator follows the last message; images ask for vision", () => {
    expect(copilotHeaders({ systemPrompt: "", tools: [], messages: [user("hi")] })).toEqual({ "x-initiator": "user" });
    const image: Message = { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 0 };
    expect(copilotHeaders({ systemPrompt: "", tools: [], messages: [image, user("and this?")] })).toEqual({ "x-initiator": "user", "copilot-vision-request": "true" });
  });

  test("the catalog's Copilot models carry VS Code's identity", () => {
    expect(copilot.headers).toMatchObject({ "editor-version": expect.stringMatching(/^vscode\//), "copilot-integration-id": "vscode-chat" });
  });
});

describe("OpenAI Codex", () => {
  test("the body has what the backend requires and nothing it refuses", () => {
    const body = codexRequestBody(model("openai-codex", "gpt-5.1-codex"), { systemPrompt: "", tools: [], messages: [user("hi")] }, { maxTokens: 100, temperature: 0.5 });
    expect(body).toMatchObject({ instructions: "", store: false, stream: true, include: ["reasoning.encrypted_content"] });
    expect(body).not.toHaveProperty("max_output_tokens");
    expect(body).not.toHaveProperty("temperature");
  });

  test("the account comes from the token's auth claim; a token that is not a JWT names none", () => {
    const claims = Buffer.from(JSON.stringify({ "https://api.openai.com/auth": { chatgpt_account_id: "acct_1" } })).toString("base64url");
    expect(chatgptAccountId(`e30.${claims}.sig`)).toBe("acct_1");
    expect(chatgptAccountId("sk-not-a-jwt")).toBeUndefined();
  });
});

describe("Gemini CLI", () => {
  test("the key carries the token and the project; anything else is not a Code Assist key", () => {
    expect(parseCodeAssistKey(codeAssistKey("ya29.x", "proj-1"))).toEqual({ token: "ya29.x", projectId: "proj-1" });
    expect(parseCodeAssistKey("ya29.x")).toBeUndefined();
    expect(parseCodeAssistKey(JSON.stringify({ token: "ya29.x" }))).toBeUndefined();
  });
});
