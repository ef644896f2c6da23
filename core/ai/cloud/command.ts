/** A credential helper's output (`credential_process`, `az`): bounded in time and size. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  code: number;
}

const MAX_OUTPUT_CHARS = 64 * 1024;

/** Runs `argv` without a terminal; killed after `timeoutMs`. Throws when it cannot be started. */
export async function runCredentialCommand(argv: string[], timeoutMs: number): Promise<CommandOutput> {
  const child = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { stdout: stdout.slice(0, MAX_OUTPUT_CHARS), stderr: stderr.trim().slice(0, 300), code };
  } finally {
    clearTimeout(timer);
  }
}
