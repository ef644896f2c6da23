import { z } from "zod";
import { ERROR_KINDS } from "../errors/error-kind.ts";

/** A failure as a client receives it (core/errors/error-kind.ts): switch on `kind`, show `message`, try again only when `retryable`. */
export const ErrorInfo = z.object({
  kind: z.enum(ERROR_KINDS),
  /** For the user: what went wrong and how to fix it. */
  message: z.string(),
  /** Whether the same command may succeed later (a rate limit, a busy session). */
  retryable: z.boolean(),
});
