/** For providers that stream tool calls without ids (Gemini, some local servers). */
export function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
