/**
 * The statuses omp exits with. Scripts and CI branch on them, so each meaning keeps its number;
 * an OmpError carries one of these, and the CLI layer turns it into the process's exit status.
 */

/** The command failed, or found nothing (`omp grep`, as ripgrep; `omp config get` on an unset key, as git). */
export const EXIT_FAILURE = 1;

/** A bug: anything thrown that is not an OmpError. */
export const EXIT_INTERNAL = 1;

/**
 * Bad usage or bad input: a flag value, a named file or session that is not there, an invalid
 * config file. ripgrep's 2, so 1 stays "nothing found".
 */
export const EXIT_USAGE = 2;

/** `omp update` on an install a package manager owns. */
export const EXIT_MANAGED_INSTALL = 3;

/** `omp update --check`: a newer version is available. */
export const EXIT_UPDATE_AVAILABLE = 10;

/** A headless run that reached --max-time, as `timeout(1)` reports it. */
export const EXIT_TIMED_OUT = 124;

/** Interrupted (Ctrl-C): 128 + SIGINT, as a shell reports it. */
export const EXIT_INTERRUPTED = 130;

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? 143 : signal === "SIGHUP" ? 129 : EXIT_INTERRUPTED;
}
