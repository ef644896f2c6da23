/**
 * A credential helper's output (models.yml `!command`, AWS `credential_process`, `az`): bounded in
 * time and size. `timedOut`: it was killed at the limit.
 */
export type CommandOutput = { stdout: string; stderr: string; code: number } | { timedOut: true };

const MAX_OUTPUT_CHARS = 64 * 1024;

/** Runs `argv` without a terminal; killed after `timeoutMs`. Throws when it cannot be started. */
export async function runCredentialCommand(argv: string[], timeoutMs: number): Promise<CommandOutput> {
  const child = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  // Raced rather than awaited: a background child of the shell can hold the pipes open long after.
  const finished = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const outcome = await Promise.race([finished, timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    child.kill("SIGKILL");
    return { timedOut: true };
  }
  const [stdout, stderr, code] = outcome;
  // The end of stderr is where a failing helper says why.
  return { stdout: stdout.slice(0, MAX_OUTPUT_CHARS), stderr: stderr.trim().slice(-300), code };
}
