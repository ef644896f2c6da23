/**
 * What a Gemini CLI login puts in `apiKey`: the access token and the Code Assist project it was
 * onboarded to, as JSON (the form the original omp and pi use, so a gateway or broker client that
 * only passes keys around still reaches the right project).
 */
export function codeAssistKey(token: string, projectId: string): string {
  return JSON.stringify({ token, projectId });
}

export function parseCodeAssistKey(key: string | undefined): { token: string; projectId: string } | undefined {
  if (!key?.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(key) as { token?: unknown; projectId?: unknown };
    if (typeof parsed.token === "string" && parsed.token !== "" && typeof parsed.projectId === "string" && parsed.projectId !== "") {
      return { token: parsed.token, projectId: parsed.projectId };
    }
  } catch {
    // Not a Code Assist key.
  }
  return undefined;
}
