/** omp itself, to start a child omp (`omp __<helper>`): the compiled binary, or bun running the entry script from source. */
export function selfCommand(): string[] {
  return Bun.main.includes("$bunfs") ? [process.execPath] : [process.execPath, Bun.main];
}
