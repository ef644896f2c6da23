import { complete } from "../ai/index.ts";
import type { Upstream } from "./upstream.ts";

export interface CredentialCheck {
  provider: string;
  /** Where the credential comes from (`ANTHROPIC_API_KEY`, `credential store`, `models.yml apiKey`...); never the key. */
  source?: string;
  credential?: string;
  models: number;
  ok: boolean;
  /** Set by `--strict`: the probe request's answer. */
  probe?: { model: string; ok: boolean; error?: string; ms: number };
  error?: string;
}

/**
 * What the gateway could serve: each provider with models, whether its credentials resolve, and
 * with `strict` a one-token request per credential (which spends a little quota).
 */
export async function checkCredentials(upstream: Upstream, strict: boolean): Promise<CredentialCheck[]> {
  const models = await upstream.servableModels();
  const providers = [...new Set(models.map((m) => m.provider))].sort();
  const out: CredentialCheck[] = [];
  for (const provider of providers) {
    const own = models.filter((m) => m.provider === provider);
    const found = await upstream.credentials(provider);
    if (!found.ok) {
      out.push({ provider, models: own.length, ok: false, error: found.error });
      continue;
    }
    for (const credential of found.credentials) {
      const row: CredentialCheck = { provider, source: credential.source, credential: credential.label, models: own.length, ok: true };
      if (strict) {
        const model = own[0]!;
        const started = performance.now();
        const reply = await complete(
          model,
          { systemPrompt: "", messages: [{ role: "user", content: "Reply with OK.", timestamp: Date.now() }], tools: [] },
          { apiKey: credential.key, maxTokens: 16, maxRetries: 0 },
        );
        const ms = Math.round(performance.now() - started);
        const failed = reply.stopReason === "error" || reply.stopReason === "aborted";
        row.probe = failed ? { model: model.id, ok: false, error: reply.errorMessage, ms } : { model: model.id, ok: true, ms };
        row.ok = !failed;
      }
      out.push(row);
    }
  }
  return out;
}
