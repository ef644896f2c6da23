/**
 * Every request serialises the whole conversation again, so each turn of a long session leaves
 * megabytes of garbage (a 200-turn session of 5 KB reads sends ~160 MB of request bodies), and
 * JSC's collector, paced by the small live heap, lets it pile up: that session peaked at ~150 MB
 * with under 10 MB live. A full collection between turns, once the process has grown by GROWTH
 * since the last one, bounds the pile to about GROWTH; a short session never reaches it. The
 * collector keeps the pages it freed unless asked to give them back (Bun.shrink): without that,
 * each collection's floor sat higher than the last and 100 short turns still peaked at 82 MB (71
 * with it, at about 1.5 ms of CPU a turn).
 */
const GROWTH = 3 * 1024 * 1024;

let floor = 0;

/** Before a model request: collects the garbage the previous ones left once it adds up to GROWTH. */
export function collectBetweenTurns(): void {
  const rss = process.memoryUsage.rss();
  if (floor === 0 || rss < floor) {
    floor = rss;
    return;
  }
  if (rss - floor < GROWTH) return;
  Bun.gc(true);
  Bun.shrink();
  floor = process.memoryUsage.rss();
}
