// The subscription providers' usage endpoints, as they answer and with the tokens they check:
// Anthropic's OAuth usage (Claude Code's `/usage`), ChatGPT's wham usage (Codex's rate limits),
// GitHub's copilot_internal/user (Copilot's quota snapshots) and Code Assist's retrieveUserQuota.
// Served by the OAuth stand-in, which knows every token it issued.

export interface UsageAnswers {
  anthropic: unknown;
  codex: unknown;
  copilot: unknown;
  gemini: unknown;
}

export interface UsageRequest {
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

/** What an account with little used answers: tests replace them with the shape they need. */
export function defaultUsageAnswers(): UsageAnswers {
  return {
    anthropic: { five_hour: { utilization: 12.0, resets_at: inHours(3) }, seven_day: { utilization: 5.0, resets_at: inHours(100) }, seven_day_opus: null, extra_usage: { is_enabled: false, monthly_limit: null, used_credits: null, utilization: null } },
    codex: {
      plan_type: "plus",
      rate_limit: {
        allowed: true,
        limit_reached: false,
        primary_window: { used_percent: 4, limit_window_seconds: 18_000, reset_after_seconds: 9000, reset_at: Math.floor(Date.now() / 1000) + 9000 },
        secondary_window: { used_percent: 2, limit_window_seconds: 604_800, reset_after_seconds: 400_000, reset_at: Math.floor(Date.now() / 1000) + 400_000 },
      },
      credits: { has_credits: false, unlimited: false, balance: null },
    },
    copilot: {
      copilot_plan: "individual",
      quota_reset_date: inHours(24 * 20).slice(0, 10),
      quota_snapshots: {
        chat: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true, overage_permitted: false, overage_count: 0, quota_id: "chat" },
        completions: { entitlement: 0, remaining: 0, percent_remaining: 100, unlimited: true, overage_permitted: false, overage_count: 0, quota_id: "completions" },
        premium_interactions: { entitlement: 300, remaining: 290, quota_remaining: 290, percent_remaining: 96.7, unlimited: false, overage_permitted: false, overage_count: 0, quota_id: "premium_interactions" },
      },
    },
    gemini: { buckets: [{ modelId: "gemini-2.5-pro", tokenType: "REQUESTS", remainingFraction: 0.9, resetTime: inHours(10) }] },
  };
}

interface Issued {
  style: string;
  access: string;
}

const claims = (token: string): Record<string, any> => {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
  } catch {
    return {};
  }
};

/**
 * The usage endpoint's answer to `request`, or undefined when the path is not one. Each refuses,
 * as its provider does, a request without the token it issued or the headers it requires.
 */
export function usageAnswer(request: UsageRequest & { method: string }, answers: UsageAnswers, issued: readonly Issued[], githubTokens: ReadonlySet<string>, project: string): Response | undefined {
  const bearer = request.headers.authorization?.replace(/^Bearer /, "") ?? "";
  const issuedTo = (style: string) => issued.some((entry) => entry.style === style && entry.access === bearer);
  if (request.method === "GET" && request.path === "/api/oauth/usage") {
    if (!(request.headers["anthropic-beta"] ?? "").split(",").includes("oauth-2025-04-20")) {
      return Response.json({ type: "error", error: { type: "authentication_error", message: "OAuth authentication is currently not supported." } }, { status: 401 });
    }
    if (!issuedTo("anthropic")) return Response.json({ type: "error", error: { type: "authentication_error", message: "Invalid bearer token" } }, { status: 401 });
    return Response.json(answers.anthropic);
  }
  if (request.method === "GET" && request.path === "/backend-api/wham/usage") {
    if (!issuedTo("openai-codex")) return Response.json({ detail: "Unauthorized" }, { status: 401 });
    const account = claims(bearer)["https://api.openai.com/auth"]?.chatgpt_account_id;
    if (request.headers["chatgpt-account-id"] !== account) return Response.json({ detail: "chatgpt-account-id does not match the token" }, { status: 403 });
    return Response.json(answers.codex);
  }
  if (request.method === "GET" && request.path === "/copilot_internal/user") {
    const token = request.headers.authorization?.replace(/^token /, "") ?? "";
    if (!githubTokens.has(token)) return Response.json({ message: "Bad credentials", documentation_url: "https://docs.github.com/rest" }, { status: 401 });
    return Response.json(answers.copilot);
  }
  if (request.method === "POST" && request.path === "/v1internal:retrieveUserQuota") {
    if (!issuedTo("google-gemini-cli")) return Response.json({ error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } }, { status: 401 });
    if ((request.body as { project?: unknown } | undefined)?.project !== project) {
      return Response.json({ error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" } }, { status: 403 });
    }
    return Response.json(answers.gemini);
  }
  return undefined;
}
