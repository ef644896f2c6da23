import { expect } from "bun:test";
import { OmpError } from "../../core/errors/omp-error.ts";

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
