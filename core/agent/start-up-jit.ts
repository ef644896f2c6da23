/**
 * dist/omp starts with JavaScriptCore's tier-up thresholds scaled 100× (embed/build.ts,
 * START_UP_JIT_POLICY): start-up code runs once, and compiling it costs memory a one-shot run
 * never earns back. A print-mode run keeps that policy to its end: side by side (2026-12-08,
 * load 2–3.5, medians of 8 interleaved runs, CPU time of the whole run) against returning to
 * the normal policy after the first reply, 100 bash calls took 2,795 against 3,013 ms of CPU
 * and peaked at 54.6 against 60.8 MiB; 100 reads 471 against 575 ms, wall 506 against 559 ms,
 * 58.5 against 61.9 MiB; a 200-turn session of edits to a 3,000-line file and reads 2,086
 * against 2,534 ms, wall 2.9 against 3.3 s. Returning to 3× or 10× instead lay in between, and
 * JavaScriptCore without its optimizing tier (BUN_JSC_useDFGJIT=0) saved less. Code hot enough
 * still tiers up, a hundred times later. The long-lived modes (the interactive mode's first
 * frame, rpc, acp) and the other commands (servers among them) return to the normal policy here.
 */
let ended = false;

export function endStartUp(): void {
  if (ended) return;
  ended = true;
  Bun.unsafe.setJITPolicy(1);
}
