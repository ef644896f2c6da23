/**
 * Streamed tool arguments are JSON text the model may get wrong (or a cut stream may truncate).
 * Rather than crash or silently run the tool with `{}`, the raw text is kept under these keys so
 * the tool's validation fails with a message the model can act on.
 */
export const INVALID_ARGUMENTS_ERROR = "_error";
export const INVALID_ARGUMENTS_RAW = "_raw";

export function parseToolArguments(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  let reason: string;
  try {
    const value: unknown = JSON.parse(raw);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    reason = `expected a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`;
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  }
  return {
    [INVALID_ARGUMENTS_ERROR]: `The tool arguments were not valid JSON (${reason}). Call the tool again with the arguments as one complete JSON object.`,
    [INVALID_ARGUMENTS_RAW]: raw,
  };
}

/** The message to give the model when a call's arguments could not be parsed, else undefined. */
export function invalidArgumentsError(args: Record<string, unknown>): string | undefined {
  const error = args[INVALID_ARGUMENTS_ERROR];
  return typeof error === "string" && INVALID_ARGUMENTS_RAW in args ? error : undefined;
}
