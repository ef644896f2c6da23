import { describe, expect, test } from "bun:test";
import { testModel } from "./test-model.ts";
import { openSignature, sealSignature, signatureOrigin } from "../../../core/gateway/signature.ts";


const claude = testModel("anthropic", "anthropic-messages", "claude-opus-5-5");
const gpt = testModel("openai", "openai-responses", "gpt-6");
const qwen = testModel("local", "openai-completions", "qwen");

describe("thinking signatures handed to clients", () => {
  test("a sealed signature names the model that made it and keeps its own signature", () => {
    const sealed = sealSignature(gpt, '{"type":"reasoning","id":"rs_1"}');
    expect(sealed.startsWith("ompgw1.")).toBe(true);
    expect(sealed).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(openSignature(sealed)).toEqual({ origin: { provider: "openai", api: "openai-responses", model: "gpt-6" }, signature: '{"type":"reasoning","id":"rs_1"}' });
    expect(openSignature(sealSignature(qwen, undefined))).toEqual({ origin: { provider: "local", api: "openai-completions", model: "qwen" } });
    // Redacted thinking (encrypted, no text) stays redacted through a client that cannot say so.
    expect(openSignature(sealSignature(claude, "EncryptedData", true))).toEqual({
      origin: { provider: "anthropic", api: "anthropic-messages", model: "claude-opus-5-5" },
      signature: "EncryptedData",
      redacted: true,
    });
  });

  test("a raw signature belongs to the target only if it speaks the API that issued it", () => {
    const raw = openSignature("EqQBCkgIARABGAIiQM");
    expect(raw).toEqual({ signature: "EqQBCkgIARABGAIiQM" });
    expect(signatureOrigin(raw, claude, "anthropic")).toEqual({ provider: "anthropic", api: "anthropic-messages", model: "claude-opus-5-5" });
    expect(signatureOrigin(raw, gpt, "anthropic")).toBeNull();
    expect(signatureOrigin(openSignature(""), claude, "anthropic")).toBeNull();
  });

  test("a damaged seal is foreign, never trusted", () => {
    const opened = openSignature("ompgw1.not-base64-json");
    expect(opened.origin).toBeUndefined();
    expect(signatureOrigin(opened, claude, "anthropic")).toBeNull();
  });
});
