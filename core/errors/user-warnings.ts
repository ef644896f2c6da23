/**
 * Problems omp worked around instead of stopping (a damaged file it skipped, a store it may only
 * read): each said once per process, where the front end shows warnings (stderr until one is set).
 */

let sink: ((line: string) => void) | undefined;
const said = new Set<string>();

export function warnUser(line: string): void {
  if (said.has(line)) return;
  said.add(line);
  if (sink) sink(line);
  else process.stderr.write(`omp: ${line}\n`);
}

/** The interactive mode shows warnings in its UI: from here on they go there (undefined: stderr again), each said anew. */
export function setWarningSink(next: ((line: string) => void) | undefined): void {
  sink = next;
  said.clear();
}
