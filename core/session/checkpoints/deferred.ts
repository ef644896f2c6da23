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

/** Runs `record` soon, or earlier when {@link settleRecordings} is called. */
export function deferRecording(record: () => void): void {
  waiting.push(record);
  if (!hooked) {
    hooked = true;
    process.on("exit", settleRecordings);
  }
  timer ??= setTimeout(settleRecordings, 0);
  timer.unref?.();
}

/** Runs every recording still waiting, in the order the commands ended. */
export function settleRecordings(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  for (let record = waiting.shift(); record; record = waiting.shift()) record();
}
