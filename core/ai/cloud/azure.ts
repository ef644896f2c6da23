import { azureAccessToken } from "./azure-credentials.ts";
import { type Transport, fillPlaceholder, getJson, withoutDirectAuth } from "./transport.ts";

type Env = Record<string, string | undefined>;

/** `AZURE_OPENAI_DEPLOYMENT_NAME_MAP=gpt-6.2=prod-gpt,o9=reasoning`: deployments named unlike their models. */
export function azureDeployment(modelId: string, env: Env): string {
  for (const pair of (env.AZURE_OPENAI_DEPLOYMENT_NAME_MAP ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === modelId) return pair.slice(eq + 1).trim();
  }
  return modelId;
}

/**
 * Azure OpenAI and Claude on Microsoft Foundry: the API's own paths under the resource's host,
 * authenticated with the resource's key in `api-key` or an Entra ID token. Azure OpenAI takes the
 * deployment name where OpenAI takes the model; with a dated AZURE_OPENAI_API_VERSION it is
 * reached through the older deployments routes (`/openai/deployments/<name>/chat/completions?api-version=…`).
 */
export const azureTransport: Transport = {
  async prepare(request, model, options) {
    const env = process.env;
    const foundry = model.api === "anthropic-messages";
    const resource = foundry ? (env.ANTHROPIC_FOUNDRY_RESOURCE ?? env.AZURE_FOUNDRY_RESOURCE) : env.AZURE_OPENAI_RESOURCE_NAME;
    const hint = foundry ? "set ANTHROPIC_FOUNDRY_RESOURCE (or ANTHROPIC_FOUNDRY_BASE_URL)" : "set AZURE_OPENAI_RESOURCE_NAME (or AZURE_OPENAI_BASE_URL)";
    const base = fillPlaceholder(model.baseUrl, "resource", resource, hint);
    let url = fillPlaceholder(request.url, "resource", resource, hint);
    const auth: Record<string, string> = options.apiKey ? { "api-key": options.apiKey } : { authorization: `Bearer ${(await azureAccessToken(env)).accessToken}` };
    const headers = { ...withoutDirectAuth(request.headers), ...auth };
    if (foundry) return { url, headers, body: JSON.stringify(request.body) };

    const deployment = azureDeployment(model.id, env);
    const body = { ...(request.body as Record<string, unknown>), model: deployment };
    const version = env.AZURE_OPENAI_API_VERSION;
    if (version && version !== "v1" && version !== "preview") {
      // The dated API: the resource root, the deployment in the path for chat, api-version in the query.
      const root = base.replace(/\/openai\/v1$/, "");
      const deployments = `${root}/openai/deployments/${encodeURIComponent(deployment)}`;
      url = model.api === "openai-completions" ? `${deployments}/chat/completions` : `${root}/openai/responses`;
      url += `?api-version=${encodeURIComponent(version)}`;
    }
    return { url, headers, body: JSON.stringify(body) };
  },

  /** The models the resource can deploy (`GET …/openai/v1/models`; Foundry's Anthropic `/v1/models`). */
  async listModels(source, apiKey, signal) {
    const env = process.env;
    const foundry = source.api === "anthropic-messages";
    const resource = foundry ? (env.ANTHROPIC_FOUNDRY_RESOURCE ?? env.AZURE_FOUNDRY_RESOURCE) : env.AZURE_OPENAI_RESOURCE_NAME;
    const base = fillPlaceholder(source.baseUrl, "resource", resource, foundry ? "set ANTHROPIC_FOUNDRY_RESOURCE" : "set AZURE_OPENAI_RESOURCE_NAME");
    const auth: Record<string, string> = apiKey ? { "api-key": apiKey } : { authorization: `Bearer ${(await azureAccessToken(env)).accessToken}` };
    const body = await getJson(foundry ? `${base}/v1/models` : `${base}/models`, foundry ? { ...auth, "anthropic-version": "2023-06-01" } : auth, signal);
    return ((body.data as Record<string, unknown>[] | undefined) ?? []).flatMap((m) => (typeof m.id === "string" ? [{ id: m.id }] : []));
  },
};
