/**
 * dist/omp starts with JavaScriptCore's tier-up thresholds scaled 100× (embed/build.ts,
 * START_UP_JIT_POLICY): start-up code runs once, and compiling it costs memory a one-shot run
 * never earns back. The agent's modes keep that policy to their end, because the normal policy
 * did not pay even in long sessions: side by side (2026-12-08, load 1–4, interleaved runs, CPU
 * time of the whole run, bench/results/rss-floor.md) against returning to it after the first
 * reply, print mode's 100 bash calls took 907 against 1,135 ms of CPU (wall 1.20 against 1.34 s)
 * and peaked at 55.2 against 62.0 MiB; 100 reads 360 against 489 ms (wall 401 against 502 ms),
 * 58.2 against 62.4 MiB; a 200-turn session of edits to a 3,000-line file and reads 2,086
 * against 2,534 ms; three such prompts (600 turns) in one `--mode rpc` process 23.7 against
 * 25.8 s, its peak 110 against 119 MiB. Returning to 3× or 10× lay in between; no optimizing tier
 * at all (BUN_JSC_useDFGJIT=0) saved less. Code hot enough still tiers up, a hundred times later.
 * The interactive mode (from its first frame: its rendering is per keystroke, and unmeasured here)
 * and the other commands, servers among them, return to the normal policy.
 */
let ended = false;

export function endStartUp(): void {
  if (ended) return;
  ended = true;
  Bun.unsafe.setJITPolicy(1);
}
