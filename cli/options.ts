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

/** Commander parser for durations such as `--max-time 90`. */
export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError(`expected a number > 0, got ${JSON.stringify(value)}`);
  return number;
}
