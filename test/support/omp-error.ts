import { expect } from "bun:test";
import { OmpError } from "../../core/errors/omp-error.ts";
import { setWarningSink } from "../../core/errors/user-warnings.ts";

/** The OmpError `fn` throws; fails the test when it throws nothing or something else. */
export function errorOf(fn: () => unknown): OmpError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OmpError);
    return error as OmpError;
  }
  throw new Error("expected an OmpError, nothing was thrown");
}

/** What `fn` warned about (core/errors/user-warnings.ts) while it ran, in order. */
export function warningsOf(fn: () => unknown): string[] {
  const lines: string[] = [];
  setWarningSink((line) => lines.push(line));
  try {
    fn();
  } finally {
    setWarningSink(undefined);
  }
  return lines;
}
