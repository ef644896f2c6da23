/**
 * Parsers for option values, free of commander so that the argv parser (option-parser.ts)
 * can run without loading it; cli/options/options.ts adapts them for commander.
 */

/** A value an option cannot take; the message says what was expected instead. */
export class InvalidOptionValue extends Error {}

/** Counts such as `-A 3`: a clear message instead of NaN. */
export function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidOptionValue(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Durations such as `--max-time 90`. */
export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidOptionValue(`expected a number > 0, got ${JSON.stringify(value)}`);
  return number;
}

/** Repeatable options (`-g a -g b`): each use adds to the list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--sort path|none`, the two orders a streaming search offers (rg's names). */
export function sortOrder(value: string): "path" | "none" {
  if (value === "path" || value === "none") return value;
  throw new InvalidOptionValue(`expected path or none, got ${JSON.stringify(value)}`);
}
