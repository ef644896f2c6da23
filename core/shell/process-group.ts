/** Signals every process in the group `pid` leads (a child spawned with `detached: true`). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The whole group has already exited.
  }
}
