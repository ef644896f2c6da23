import { type z, prettifyError } from "zod";

/**
 * What the model reads when its arguments do not fit the tool's schema: zod's account of each
 * problem. A module of its own, imported on the first bad call: `import("zod")` itself would make
 * the bundle keep, and start-up evaluate, every export of zod.
 */
export function invalidArgumentsMessage(toolName: string, error: z.ZodError): string {
  return `Invalid arguments for ${toolName}:\n${prettifyError(error)}\nFix them and call ${toolName} again.`;
}
