import { OmpError } from "../errors/omp-error.ts";

export type WebErrorKind = "bad-url" | "refused" | "too-large" | "timeout" | "http" | "network" | "too-many-redirects" | "unsupported";

/** A fetch that failed, classified where it happened; `message` says what to do next. */
export class WebError extends OmpError {
  constructor(
    readonly kind: WebErrorKind,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, options);
    this.status = options.status;
  }
  readonly status: number | undefined;
}
