import { OmpError } from "../errors/omp-error.ts";

export type ArchiveErrorKind = "corrupt" | "unsupported" | "too-large" | "bomb" | "unsafe-path" | "not-found" | "query";

/** An archive, document or database that cannot be read as asked; `message` says why and what to do instead. */
export class ArchiveError extends OmpError {
  constructor(
    readonly kind: ArchiveErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
