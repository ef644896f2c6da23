import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunResult } from "./omp.ts";

/** Helpers for running install.sh and the installed omp the way a user's shell would. */

export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export interface ShellRun {
  home: string;
  env?: Record<string, string | undefined>;
  /** PATH for the run (default: the system dirs only, so no omp is found by accident). */
  path?: string;
  cwd?: string;
}

export function userEnv(run: ShellRun): Record<string, string> {
  const env: Record<string, string | undefined> = { HOME: run.home, PATH: run.path ?? SYSTEM_PATH, LANG: "C.UTF-8", TMPDIR: process.env.TMPDIR, SHELL: "/bin/sh", ...run.env };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export async function runCommand(argv: string[], run: ShellRun): Promise<RunResult> {
  const child = Bun.spawn(argv, { cwd: run.cwd ?? run.home, env: userEnv(run), stdio: ["ignore", "pipe", "pipe"] });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** `curl -fsSL <url>/install.sh | <shell> -s -- <args>`, as the README tells users. */
export function curlPipeSh(url: string, shell: "dash" | "bash" | "sh", args: string[], run: ShellRun): Promise<RunResult> {
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");
  return runCommand(["sh", "-c", `curl -fsSL '${url}/install.sh' | ${shell} -s -- ${quoted}`], run);
}

/** A dir of links to every system command except `omit`: a PATH on which those commands do not exist. */
export function pathWithout(dir: string, omit: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const systemDir of ["/usr/local/bin", "/usr/bin", "/usr/sbin"]) {
    if (!existsSync(systemDir)) continue;
    for (const name of readdirSync(systemDir)) {
      if (omit.includes(name) || existsSync(join(dir, name))) continue;
      symlinkSync(join(systemDir, name), join(dir, name));
    }
  }
  return dir;
}

/** A stand-in for a system command (uname, ldd, sysctl), for the installer's platform detection. */
export function fakeCommand(dir: string, name: string, script: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, name), 0o755);
}
