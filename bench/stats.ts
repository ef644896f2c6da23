/** Clock and statistics the benchmarks share. */

/** Epoch ms with sub-ms precision: the clock the provider stand-in stamps requests with. */
export const now = () => performance.timeOrigin + performance.now();

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
