import { settleRecordings } from "./deferred.ts";

/**
 * A count of the times omp began changing files (a file tool's write, a command, a rewind): a
 * command's snapshot is the next command's "before" only while the count has not moved since.
 * Its own module, so a file write bumps it without loading the snapshot code.
 */
let count = 0;

export const changeEpoch = (): number => count;

export function noteChange(): void {
  // What the last command changed is recorded before omp changes anything else.
  settleRecordings();
  count++;
}
