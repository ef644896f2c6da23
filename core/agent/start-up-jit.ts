/**
 * dist/omp starts with JavaScriptCore's tier-up thresholds scaled up (embed/build.ts,
 * START_UP_JIT_POLICY): start-up code runs once, and compiling it costs memory a one-shot run
 * never earns back. Once the run is past start-up (its first model reply, the interactive mode's
 * first frame, or a command other than the agent's) code that runs again is what the JIT is for,
 * so the normal policy comes back.
 */
let ended = false;

export function endStartUp(): void {
  if (ended) return;
  ended = true;
  Bun.unsafe.setJITPolicy(1);
}
