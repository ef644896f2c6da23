/** The default command. The agent itself is the subject of its own issue; until it lands, say so. */
export async function runAgent(_messages: string[]): Promise<number> {
  process.stderr.write(
    "omp: the agent is not built yet in this version.\n" +
      "Available now: omp grep, omp find, omp doctor (see omp --help).\n",
  );
  return 1;
}
