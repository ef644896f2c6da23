import type { Model } from "../ai/model.ts";
import { sameAsClient } from "../ai/apis/index.ts";

/**
 * Thinking signatures as the gateway hands them to clients. Anthropic's own signatures (and
 * Responses' own reasoning items) travel byte-exact; anything signed by another provider is sealed
 * with the model that made it, so that when the client sends it back the gateway knows whose it is
 * and drops it before a different model sees it, instead of forging it into the target's format.
 */

const PREFIX = "ompgw1.";

export interface Origin {
  provider: string;
  api: string;
  model: string;
}

export function originOf(model: Model): Origin {
  return { provider: model.provider, api: model.api, model: model.id };
}

/** `redacted`: the signature is encrypted thinking with no text (Anthropic's redacted_thinking). */
export function sealSignature(model: Model, signature: string | undefined, redacted = false): string {
  const payload: Record<string, string | boolean> = { p: model.provider, a: model.api, m: model.id };
  if (signature !== undefined) payload.s = signature;
  if (redacted) payload.r = true;
  return PREFIX + Buffer.from(JSON.stringify(payload)).toString("base64url");
}

export interface OpenedSignature {
  /** `undefined`: not sealed by the gateway, so signed by the provider the client speaks to natively. */
  origin?: Origin;
  signature?: string;
  redacted?: boolean;
}

export function openSignature(text: string | undefined): OpenedSignature {
  if (text === undefined || text === "") return {};
  if (!text.startsWith(PREFIX)) return { signature: text };
  try {
    const payload = JSON.parse(Buffer.from(text.slice(PREFIX.length), "base64url").toString("utf8")) as Record<string, unknown>;
    if (typeof payload.p !== "string" || typeof payload.a !== "string" || typeof payload.m !== "string") return {};
    const origin = { provider: payload.p, api: payload.a, model: payload.m };
    const opened: OpenedSignature = { origin };
    if (typeof payload.s === "string") opened.signature = payload.s;
    if (payload.r === true) opened.redacted = true;
    return opened;
  } catch {
    return {};
  }
}

/**
 * Whose a signature is that the client returned: a sealed one names its model; a raw one is the
 * provider's whose API is the client's own format (`client`), which only the target can check, and
 * only if it speaks that API.
 * `null` means foreign: the thinking must be dropped.
 */
export function signatureOrigin(opened: OpenedSignature, target: Model, client: "anthropic" | "openai-responses"): Origin | null {
  if (opened.origin) return opened.origin;
  if (opened.signature !== undefined && sameAsClient(target, client)) return originOf(target);
  return null;
}
