import { getProvider, providerBaseUrl } from "../../ai/providers-table.ts";
import { CODE_ASSIST_HEADERS } from "../../ai/apis/google-gemini-cli/stream.ts";
import { OmpError, describeError } from "../../errors/omp-error.ts";

type Json = Record<string, unknown>;
type Env = Record<string, string | undefined>;

const FREE_TIER = "free-tier";
/** What Gemini CLI assumes when Code Assist names no default tier. */
const LEGACY_TIER = "legacy-tier";
const ONBOARD_POLLS = 30;
const ONBOARD_POLL_MS = 2000;
const TIMEOUT_MS = 30_000;

/** `cloudaicompanionProject` is a bare id in loadCodeAssist's answer and `{id, name}` in onboardUser's. */
function projectOf(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  const id = (value as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * The Code Assist project a Gemini CLI login works in, found as Gemini CLI finds it:
 * `loadCodeAssist` names it for a user already onboarded; otherwise `onboardUser` enrols the user
 * in their default tier (the free tier provisions a managed project; the others need the user's
 * own, from GOOGLE_CLOUD_PROJECT) and is polled until the operation is done. Code Assist is at the
 * provider's base URL, so GOOGLE_GEMINI_CLI_BASE_URL moves it with the chat endpoint.
 */
export async function codeAssistProject(access: string, env: Env = process.env): Promise<string> {
  const base = providerBaseUrl(getProvider("google-gemini-cli")!, env);
  const own = env.GOOGLE_CLOUD_PROJECT?.trim() || env.GOOGLE_CLOUD_PROJECT_ID?.trim() || undefined;
  const metadata = { ideType: "IDE_UNSPECIFIED", platform: "PLATFORM_UNSPECIFIED", pluginType: "GEMINI", ...(own && { duetProject: own }) };
  const call = async (method: "GET" | "POST", path: string, body?: Json): Promise<Json> => {
    let response: Response;
    try {
      response = await fetch(`${base}/v1internal${path}`, {
        method,
        headers: { authorization: `Bearer ${access}`, "content-type": "application/json", accept: "application/json", ...CODE_ASSIST_HEADERS },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new OmpError(`Gemini CLI: Code Assist could not be reached (${describeError(error)}); try the login again`);
    }
    const text = await response.text();
    if (!response.ok) {
      let detail = "";
      try {
        detail = String(((JSON.parse(text) as Json).error as Json | undefined)?.message ?? "");
      } catch {
        // Not JSON: the status says enough.
      }
      throw new OmpError(`Gemini CLI: Code Assist answered ${response.status} to ${path.replace(/^:/, "")}${detail ? ` (${detail})` : ""}`);
    }
    try {
      return JSON.parse(text) as Json;
    } catch {
      throw new OmpError(`Gemini CLI: Code Assist answered ${path.replace(/^:/, "")} with something that is not JSON`);
    }
  };

  const loaded = await call("POST", ":loadCodeAssist", { ...(own && { cloudaicompanionProject: own }), metadata });
  const known = projectOf(loaded.cloudaicompanionProject);
  if (loaded.currentTier) {
    if (known ?? own) return (known ?? own)!;
    throw new OmpError("Gemini CLI: this Google account's Code Assist tier needs a Google Cloud project; set GOOGLE_CLOUD_PROJECT to its id and log in again");
  }
  const tiers = Array.isArray(loaded.allowedTiers) ? (loaded.allowedTiers as Json[]) : [];
  const tier = (tiers.find((t) => t.isDefault === true)?.id as string | undefined) ?? LEGACY_TIER;
  if (tier !== FREE_TIER && !own) {
    throw new OmpError(`Gemini CLI: enrolling in Code Assist's ${tier} needs a Google Cloud project; set GOOGLE_CLOUD_PROJECT to its id and log in again`);
  }
  let operation = await call("POST", ":onboardUser", { tierId: tier, ...(tier !== FREE_TIER && { cloudaicompanionProject: own }), metadata });
  const onboarded = () => projectOf((operation.response as Json | undefined)?.cloudaicompanionProject);
  for (let poll = 0; operation.done !== true && !onboarded() && typeof operation.name === "string" && poll < ONBOARD_POLLS; poll++) {
    await Bun.sleep(ONBOARD_POLL_MS);
    operation = await call("GET", `/${operation.name}`);
  }
  const project = onboarded() ?? (tier !== FREE_TIER ? own : undefined);
  if (!project) throw new OmpError("Gemini CLI: Code Assist did not finish setting up this account; try the login again in a minute");
  return project;
}
