/**
 * dist/omp starts with JavaScriptCore's tier-up thresholds scaled 100× (embed/build.ts,
 * START_UP_JIT_POLICY): start-up code runs once, and compiling it costs memory a one-shot run
 * never earns back. The print, rpc and acp modes keep that policy to their end: the normal policy
 * did not pay even in long sessions: side by side (2026-12-08, load 1–4, interleaved runs, CPU
 * time of the whole run, bench/results/rss-floor.md) against returning to it after the first
 * reply, print mode's 100 bash calls took 907 against 1,135 ms of CPU (wall 1.20 against 1.34 s)
 * and peaked at 55.2 against 62.0 MiB; 100 reads 360 against 489 ms (wall 401 against 502 ms),
 * 58.2 against 62.4 MiB; a 200-turn session of edits to a 3,000-line file and reads 2,086
 * against 2,534 ms; three such prompts (600 turns) in one `--mode rpc` process 23.7 against
 * 25.8 s, its peak 110 against 119 MiB. Returning to 3× or 10× lay in between; no optimizing tier
 * at all (BUN_JSC_useDFGJIT=0) saved less. Code hot enough still tiers up, a hundred times later.
 * The interactive mode returns to the normal policy at its first frame, as its rendering runs per
 * keystroke and per streamed chunk: keystroke to screen while an answer streams took 0.78–0.97 ms
 * (median) with it against 1.08–1.15 ms kept at 100× (bench/interactive.ts, two runs each). The
 * other commands, servers among them, return to it at once.
 */
let ended = false;

export function endStartUp(): void {
  if (ended) return;
  ended = true;
  Bun.unsafe.setJITPolicy(1);
}
