/**
 * A command's recording (commands.ts) runs after its result went back to the model, while the next
 * request is on its way, instead of on the call's path. It cannot be lost or come late: whatever
 * could change files or read the journal runs it first — the next command, a file tool's write or a
 * rewind (epoch.ts's noteChange), a journal read (journal.ts), and the process's exit. Its own
 * module, so those callers do not load the snapshot code.
 */
const waiting: (() => void)[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
let hooked = false;
/** What waiting recordings still wait for (off the JS thread). */
const readying = new Set<Promise<void>>();

/**
 * Runs `record` soon (once `ready` settles, when given: what it needs is being made off the JS
 * thread), or earlier when {@link settleRecordings} is called.
 */
export function deferRecording(record: () => void, ready?: Promise<void>): void {
  waiting.push(record);
  if (!hooked) {
    hooked = true;
    process.on("exit", settleRecordings);
  }
  if (ready) {
    readying.add(ready);
    void ready.then(() => {
      readying.delete(ready);
      settleRecordings();
    });
    return;
  }
  timer ??= setTimeout(settleRecordings, 0);
  timer.unref?.();
}

/**
 * Settles once what the waiting recordings wait for has come (undefined: nothing is on its way).
 * The next command waits for it rather than have the recordings do that work themselves on the JS thread.
 */
export function recordingsReady(): Promise<unknown> | undefined {
  return readying.size > 0 ? Promise.all(readying) : undefined;
}

/** Runs every recording still waiting, in the order the commands ended. */
export function settleRecordings(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  for (let record = waiting.shift(); record; record = waiting.shift()) record();
}
