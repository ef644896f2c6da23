import { readFileSync } from "node:fs";
import { join } from "node:path";
import { googleAccessToken } from "./google-credentials.ts";
import { parseIni } from "./ini.ts";
import { type Transport, anthropicCloudBody, withoutDirectAuth } from "./transport.ts";

type Env = Record<string, string | undefined>;

const ANTHROPIC_VERSION = "vertex-2023-10-16";

/** The project of gcloud's active configuration (`gcloud config set project …`), as Google's own clients fall back to it. */
export function gcloudProject(env: Env): string | undefined {
  const dir = env.CLOUDSDK_CONFIG ?? join(env.HOME ?? "", ".config", "gcloud");
  try {
    const active = env.CLOUDSDK_ACTIVE_CONFIG_NAME ?? readFileSync(join(dir, "active_config"), "utf8").trim();
    return parseIni(readFileSync(join(dir, "configurations", `config_${active || "default"}`), "utf8")).get("core")?.project;
  } catch {
    return undefined;
  }
}

/** The location: Google's variables, then Claude Code's CLOUD_ML_REGION; `global` by default. */
export function vertexLocation(env: Env): string {
  return env.GOOGLE_CLOUD_LOCATION ?? env.GOOGLE_VERTEX_LOCATION ?? env.VERTEX_LOCATION ?? env.CLOUD_ML_REGION ?? "global";
}

function vertexHost(baseUrl: string, location: string): string {
  // The global endpoint has no location prefix in its host name.
  return location === "global" ? baseUrl.replace("{location}-aiplatform", "aiplatform") : baseUrl.replaceAll("{location}", location);
}

/**
 * Google Vertex AI: Gemini through `publishers/google` (the Gemini API's body as it is), Claude
 * through `publishers/anthropic` with `:streamRawPredict` (the Messages body without `model`, with
 * Vertex's anthropic_version). Authenticated with an Application Default Credentials token, or an
 * API key (GOOGLE_CLOUD_API_KEY) for Gemini.
 */
export const vertexTransport: Transport = {
  async prepare(request, model, options) {
    const env = process.env;
    const location = vertexLocation(env);
    const base = vertexHost(model.baseUrl, location);
    const headers = withoutDirectAuth(request.headers, ["anthropic-version", "anthropic-beta"]);
    let auth: Record<string, string>;
    let keyProject: string | undefined;
    if (options.apiKey) auth = { "x-goog-api-key": options.apiKey };
    else {
      const token = await googleAccessToken(env);
      auth = { authorization: `Bearer ${token.accessToken}` };
      keyProject = token.project;
    }
    const project = env.GOOGLE_CLOUD_PROJECT ?? env.GCLOUD_PROJECT ?? env.ANTHROPIC_VERTEX_PROJECT_ID ?? keyProject ?? gcloudProject(env);
    if (!project) throw new Error("set GOOGLE_CLOUD_PROJECT (or ANTHROPIC_VERTEX_PROJECT_ID, or `gcloud config set project`) to the Vertex AI project");
    const prefix = `${base}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}/publishers`;
    const id = encodeURIComponent(model.id);
    if (model.api === "anthropic-messages") {
      const body = JSON.stringify(anthropicCloudBody(request.body, ANTHROPIC_VERSION, request.headers, true));
      return { url: `${prefix}/anthropic/models/${id}:streamRawPredict`, headers: { ...headers, ...auth }, body };
    }
    if (model.api === "google-generative-ai") {
      return { url: `${prefix}/google/models/${id}:streamGenerateContent?alt=sse`, headers: { ...headers, ...auth }, body: JSON.stringify(request.body) };
    }
    throw new Error(`${model.provider}: ${model.id} speaks ${model.api}, which Vertex AI is not reached with here`);
  },

  async listModels() {
    throw new Error("Vertex AI's publisher models are the catalog's; use models.yml for others");
  },
};
