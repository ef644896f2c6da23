import type { Subprocess } from "bun";
import type { SandboxPolicy } from "../sandbox/policy.ts";
import { type SandboxedCommand, sandboxCommand } from "../sandbox/wrap.ts";
import { type Container, containedArgv, createContainer } from "./containment.ts";

/**
 * Makes tools that would page, prompt or colour behave as in CI: nobody can answer a prompt or
 * scroll a pager, and escape codes waste the model's context.
 */
export const NON_INTERACTIVE_ENV: Record<string, string> = {
  OMP: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  TERM: "dumb",
  NO_COLOR: "1",
  DEBIAN_FRONTEND: "noninteractive",
};

/** A terminal's environment: programs under a PTY should behave as they do for a person. */
const PTY_ENV: Record<string, string> = { OMP: "1", TERM: "xterm-256color", COLORTERM: "truecolor" };

export interface PtySize {
  cols: number;
  rows: number;
}

export interface SpawnCommandOptions {
  command: string;
  /** A program to run as it is instead of `command` under bash (the eval tool's kernels); its stdout stays its own. */
  argv?: string[];
  /** Variables added to the command's environment (before the sandbox cleans it). */
  env?: Record<string, string>;
  cwd: string;
  /** Run under a pseudo-terminal of this size instead of pipes. */
  pty?: PtySize;
  /** Keep stdin open as a pipe (jobs the model writes to); otherwise the command gets none. */
  stdin?: boolean;
  /** The model's commands (core/sandbox): confined by `policy`, their environment without omp's secrets. The user's own have none. */
  sandbox?: { policy: SandboxPolicy | undefined; secrets: readonly string[] };
}

export interface SpawnedCommand {
  proc: Subprocess<"pipe" | "ignore", "pipe", "ignore">;
  container: Container;
  /** How the sandbox confines it ("none": not at all). */
  confinement: SandboxedCommand["confinement"];
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The argv that runs `command`: bash, with stderr joined to stdout so the two arrive interleaved
 * exactly as written; under a PTY, util-linux's `script` opens the terminal, makes it the
 * controlling tty of a new session and relays it over the pipes.
 */
function commandArgv(options: SpawnCommandOptions): string[] {
  if (options.argv) return options.argv;
  if (!options.pty) return ["bash", "-c", `exec 2>&1\n${options.command}`];
  const { rows, cols } = options.pty;
  const inner = `stty rows ${rows} cols ${cols} 2>/dev/null; exec bash -c ${quote(options.command)}`;
  return ["script", "--quiet", "--flush", "--return", "--command", inner, "/dev/null"];
}

/**
 * Every command omp runs for the model or the user (foreground, background, PTY) starts here: in
 * a container that ends everything it starts (containment.ts), with the environment for its kind.
 * This is the one place a sandboxing launcher wraps the command's argv.
 */
export function spawnCommand(options: SpawnCommandOptions): SpawnedCommand {
  const container = createContainer();
  const base = { ...process.env, ...(options.pty ? PTY_ENV : NON_INTERACTIVE_ENV), ...options.env };
  // The sandbox launcher runs inside the container: containment ends it and all it starts.
  const command = options.sandbox
    ? sandboxCommand(commandArgv(options), { policy: options.sandbox.policy, env: base, secrets: options.sandbox.secrets })
    : { argv: commandArgv(options), env: base, confinement: "none" as const };
  const env = { ...command.env, ...container.env, ...(options.pty ? { SHELL: "/bin/sh" } : {}) };
  try {
    const proc = Bun.spawn(containedArgv(container, command), {
      cwd: options.cwd,
      env,
      stdin: options.stdin || options.pty ? "pipe" : "ignore",
      stdout: "pipe",
      stderr: "ignore",
      // Its own process group, so signals reach the whole pipeline even without a cgroup.
      detached: true,
    });
    return { proc, container, confinement: command.confinement };
  } catch (error) {
    container.destroy();
    throw error;
  }
}
