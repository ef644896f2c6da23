/**
 * Every request serialises the whole conversation again, so each turn of a long session leaves
 * megabytes of garbage (a 200-turn session of 5 KB reads sends ~160 MB of request bodies), and
 * JSC's collector, paced by the small live heap, lets it pile up: that session peaked at ~150 MB
 * with under 10 MB live. A full collection between turns, once the process has grown by GROWTH
 * since the last one, bounds the pile to about GROWTH; a short session never reaches it.
 */
const GROWTH = 6 * 1024 * 1024;

let floor = 0;

/** After a model request: collects the garbage its body left once it adds up to GROWTH. */
export function collectBetweenTurns(): void {
  const rss = process.memoryUsage.rss();
  if (floor === 0 || rss < floor) {
    floor = rss;
    return;
  }
  if (rss - floor < GROWTH) return;
  Bun.gc(true);
  floor = process.memoryUsage.rss();
}
