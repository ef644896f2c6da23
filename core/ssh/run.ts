import { createNumberedLog, type CollectedOutput, OutputCollector } from "../shell/bash-output.ts";
import { commandEnv } from "../sandbox/env.ts";
import type { SshHost } from "./hosts.ts";
import { userSshOptions } from "./options.ts";


const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * What the remote shell runs: the command, in `cwd` when given. A `compat` host (Windows whose
 * login shell is not a POSIX one, with sh installed) gets it wrapped in `sh -c`, as the original does.
 */
export function remoteCommand(command: string, cwd: string | undefined, compat = false): string {
  const inner = cwd ? `cd -- ${quote(cwd)} && ${command}` : command;
  return compat ? `sh -c ${quote(inner)}` : inner;
}

/**
 * The system ssh client's argv for one command on `host`. ~/.ssh/config applies (aliases, User,
 * Port, IdentityFile, ProxyJump); ssh.json's username, port and keyPath override it. BatchMode:
 * never a password or passphrase prompt nobody can answer; a new host key is accepted once and
 * checked from then on; no agent or X11 forwarding and no tty, so the remote side gets nothing
 * of this machine's but the command. `--` ends the options: the destination is never one.
 */
export function sshArgv(host: SshHost, command: string, options: { connectTimeout: number; env: Record<string, string | undefined> }): string[] {
  return [
    "ssh",
    "-T",
    "-o", "BatchMode=yes",
    "-o", "StrictHostKeyChecking=accept-new",
    "-o", `ConnectTimeout=${options.connectTimeout}`,
    "-o", "ForwardAgent=no",
    "-o", "ForwardX11=no",
    "-o", "ClearAllForwardings=yes",
    ...(host.port !== undefined ? ["-p", String(host.port)] : []),
    ...(host.username ? ["-l", host.username] : []),
    ...(host.keyPath ? ["-i", host.keyPath, "-o", "IdentitiesOnly=yes"] : []),
    ...userSshOptions(options.env),
    "--",
    host.host,
    command,
  ];
}

export interface SshRun {
  output: CollectedOutput;
  exitCode: number | null;
  /** Why it was stopped: the timeout passed, or the call was cancelled. */
  stopped?: "timeout" | "aborted";
}

/**
 * Runs `argv` (sshArgv's) with stdout and stderr into one collector, bounded like bash's output
 * (head and tail for the model, the whole in a log under `artifactsDir`). The client's
 * environment keeps what ssh needs (SSH_AUTH_SOCK, HOME) but not omp's secrets.
 */
export async function runSsh(
  argv: string[],
  options: { timeoutMs: number; signal: AbortSignal; artifactsDir: string; secrets: readonly string[]; redact?: (text: string) => string; onUpdate?: (text: string) => void },
): Promise<SshRun> {
  const collector = new OutputCollector(() => createNumberedLog(options.artifactsDir, "ssh"), undefined, options.redact);
  const { env } = commandEnv(process.env, options.secrets, []);
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let stopped: SshRun["stopped"];
  const stop = (why: "timeout" | "aborted") => {
    stopped ??= why;
    proc.kill("SIGTERM");
    setTimeout(() => proc.kill("SIGKILL"), 2000).unref();
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("aborted");
  options.signal.addEventListener("abort", onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      const text = collector.push(chunk);
      if (text) options.onUpdate?.(text);
    }
  };
  try {
    await Promise.all([drain(proc.stdout), drain(proc.stderr)]);
    const exitCode = await proc.exited;
    return { output: collector.finish(), exitCode, ...(stopped ? { stopped } : {}) };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}
