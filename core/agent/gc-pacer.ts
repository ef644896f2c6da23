/**
 * Every request serialises the whole conversation again, so each turn of a long session leaves
 * megabytes of garbage (a 200-turn session of 5 KB reads sends ~160 MB of request bodies), and
 * JSC's collector, paced by the small live heap, lets it pile up: that session peaked at ~150 MB
 * with under 10 MB live. A full collection between turns, once the process has grown by GROWTH
 * since the last one, bounds the pile to about GROWTH; a short session never reaches it. The
 * collector keeps the pages it freed unless asked to give them back (Bun.shrink): without that,
 * each collection's floor sat higher than the last and 100 short turns still peaked at 82 MB (71
 * with it, at about 1.5 ms of CPU a turn).
 *
 * Growth is not all garbage (code compiled, buffers kept, and a conversation sent to Anthropic is
 * no longer serialised again, bench/results/tool-loop.md): a collection that gives back less than
 * half of the growth it waited for found little to collect, so the next one waits for twice as
 * much, up to MAX_GROWTH; one that gives back more goes back to GROWTH.
 */
const GROWTH = 3 * 1024 * 1024;
const MAX_GROWTH = 12 * 1024 * 1024;

let floor = 0;
let allowed = GROWTH;

/** Before a model request: collects the garbage the previous ones left once it adds up to GROWTH. */
export function collectBetweenTurns(): void {
  const rss = process.memoryUsage.rss();
  if (floor === 0 || rss < floor) {
    floor = rss;
    return;
  }
  if (rss - floor < allowed) return;
  Bun.gc(true);
  Bun.shrink();
  const after = process.memoryUsage.rss();
  allowed = rss - after < allowed / 2 ? Math.min(allowed * 2, MAX_GROWTH) : GROWTH;
  floor = after;
}
