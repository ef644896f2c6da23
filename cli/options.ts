import { InvalidArgumentError } from "commander";

/** Commander parser for counts such as `-A 3`: a clear message instead of NaN. */
export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Commander parser for repeatable options (`-g a -g b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
