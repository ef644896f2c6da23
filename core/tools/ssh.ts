import { declared } from "./declare.ts";
import { ssh as sshDeclaration } from "./declarations/ssh.ts";
import { statSync } from "node:fs";
import { z } from "zod";
import { errorResult, textResult } from "./format.ts";
import type { ToolDefinition } from "./types.ts";
import type { SshHost } from "../ssh/hosts.ts";
import { remoteCommand, runSsh, sshArgv } from "../ssh/run.ts";
import { hostTarget } from "../ssh/options.ts";

/** The original's clamp: 60 s unless given, 1 s to an hour. */
const DEFAULT_TIMEOUT = 60;
const MAX_TIMEOUT = 3600;
const CONNECT_TIMEOUT = 20;

const schema = z.object({
  host: z.string().min(1).describe("Host name from the available hosts"),
  command: z.string().min(1).describe("Command to run on the host"),
  cwd: z.string().min(1).optional().describe("Remote working directory"),
  timeout: z.number().optional().describe("Seconds (default 60, max 3600)"),
});

export interface SshDetails {
  host: string;
  exitCode: number | null;
  truncated: boolean;
  logPath?: string;
}

/** The ssh tool over `hosts` (the names the model may use; the approval gate asks for every call, whatever the mode). */
export function createSshTool(hosts: readonly SshHost[]): ToolDefinition<typeof schema, SshDetails> {
  return {
    ...declared(sshDeclaration),
    schema,
    async execute(input, context) {
      const host = hosts.find((candidate) => candidate.name === input.host);
      if (!host) {
        const names = hosts.map((candidate) => candidate.name).join(", ") || "none";
        return errorResult(`Unknown SSH host: ${input.host}. Available hosts: ${names}.`);
      }
      const keyProblem = host.keyPath ? keyFileProblem(host.keyPath) : undefined;
      if (keyProblem) return errorResult(`${keyProblem} (host ${host.name}, ${host.source}); fix keyPath there, or leave it out to use ~/.ssh/config's IdentityFile.`);
      const timeout = Math.min(MAX_TIMEOUT, Math.max(1, Math.floor(input.timeout ?? DEFAULT_TIMEOUT)));
      const argv = sshArgv(host, remoteCommand(input.command, input.cwd, host.compat), { connectTimeout: Math.min(CONNECT_TIMEOUT, timeout), env: process.env });
      let run;
      try {
        run = await runSsh(argv, {
          timeoutMs: timeout * 1000,
          signal: context.signal,
          artifactsDir: context.artifactsDir,
          secrets: context.secrets ?? [],
          ...(context.redact ? { redact: context.redact } : {}),
          ...(context.onUpdate ? { onUpdate: context.onUpdate } : {}),
        });
      } catch (error) {
        const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
        return errorResult(missing ? "ssh binary not found on PATH: install the OpenSSH client." : `ssh could not start: ${(error as Error).message}`);
      }
      const details: SshDetails = { host: host.name, exitCode: run.exitCode, truncated: run.output.truncated, ...(run.output.logPath ? { logPath: run.output.logPath } : {}) };
      const output = run.output.text || "(no output)";
      if (run.stopped === "timeout") return errorResult(`${output}\n[SSH: the command did not finish within ${timeout} s and was stopped]`, details);
      if (run.stopped === "aborted") return errorResult(`${output}\n[Command aborted: the call was cancelled]`, details);
      // ssh's own failures (unreachable, refused key, unknown alias) exit 255; the remote command's codes pass through.
      if (run.exitCode === 255) return errorResult(`${output}\nssh could not run the command on ${host.name} (${hostTarget(host)}): exit 255, usually a connection or authentication failure (ssh -v shows why when run by hand).`, details);
      if (run.exitCode !== 0) return errorResult(`${output}\nCommand exited with code ${run.exitCode}`, details);
      return textResult(output, details);
    },
  };
}

/** Why ssh would refuse the key file (the original checks the same before connecting); only its metadata is looked at, never its bytes. */
function keyFileProblem(path: string): string | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return `SSH key not found: ${path}`;
  }
  if (!stat.isFile()) return `SSH key is not a file: ${path}`;
  if ((stat.mode & 0o077) !== 0) return `SSH key permissions must be 600 or stricter: ${path} is ${(stat.mode & 0o777).toString(8)}`;
  return undefined;
}

/** The spec the bundle carries (builtin-specs.ts); sessions load the tool over their hosts. */
export const sshTool = createSshTool([]);
