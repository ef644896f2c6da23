/**
 * The running browser's stop, kept apart from host.ts so a session's end can stop it without
 * loading the browser's code when it never ran.
 */
let stop: (() => void) | undefined;

export function browserStarted(stopIt: () => void): void {
  stop = stopIt;
}

/** Ends the browser (its driver, Chromium and profile), if one runs. */
export function stopBrowser(): void {
  const current = stop;
  stop = undefined;
  current?.();
}
