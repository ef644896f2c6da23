/** How many bytes of `path` sit in the page cache (util-linux fincore). */
export function residentBytes(path: string): number {
  const run = Bun.spawnSync(["fincore", "--bytes", "--noheadings", "--output", "RES", path], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`fincore ${path} failed: ${run.stderr.toString().trim()}`);
  return Number(run.stdout.toString().trim());
}
