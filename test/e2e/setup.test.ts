// `omp setup`: what optional features need, checked on this machine, and the install flow: the
// commands shown, asked for, run in order through the package manager, and checked again. The
// package managers are stand-ins on PATH that record their arguments and put the programs in place
// (a test cannot install system packages); the checks of what is installed are real.
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runAgent } from "../support/agent-harness.ts";
import { tempDir } from "../support/omp.ts";

const runOmp = (args: string[], options: { home: string; cwd?: string; env?: Record<string, string>; stdin?: string }) => runAgent(args, { cwd: options.home, ...options });

/** A bin folder with apt-get, npm and sudo that log their arguments; npm -g puts pyright-langserver beside them. */
function fakeManagers(): { bin: string; log: string } {
  const bin = tempDir();
  const log = join(tempDir(), "calls.log");
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script("apt-get", "exit 0");
  script("npm", `case "$*" in *pyright*) printf '#!/bin/sh\\n' > ${bin}/pyright-langserver; chmod +x ${bin}/pyright-langserver ;; esac`);
  writeFileSync(join(bin, "sudo"), '#!/bin/sh\nexec "$@"\n');
  chmodSync(join(bin, "sudo"), 0o755);
  return { bin, log };
}

const calls = (log: string) => {
  try {
    return readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

describe("omp setup", () => {
  test("reports what is installed here, as the machine says", async () => {
    const result = await runOmp(["setup", "--json"], { home: tempDir(), cwd: tempDir() });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(["debian", "ubuntu"]).toContain(report.platform);
    const byId = Object.fromEntries(report.features.map((f: any) => [f.id, f]));
    // .ci/setup installs both.
    expect(byId.clangd.installed).toBe(Bun.which("clangd") !== null);
    expect(byId.browser.installed).toBe(Bun.which("chromium") !== null || Bun.which("chromium-browser") !== null);
    const missingPath = await runOmp(["setup", "clangd", "--check"], { home: tempDir(), cwd: tempDir(), env: { PATH: "/nonexistent" } });
    expect(missingPath.code).toBe(1);
    expect(missingPath.stdout).toContain("clangd: missing clangd");
  });

  test("a missing feature: the commands are shown and asked for; no runs nothing, yes runs them in order and checks again", async () => {
    const { bin, log } = fakeManagers();
    const env = { PATH: `${bin}:/usr/bin:/bin` };
    const cwd = tempDir();
    const dry = await runOmp(["setup", "pyright", "--dry-run"], { home: tempDir(), cwd, env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("pyright: missing pyright-langserver");
    expect(dry.stdout).toMatch(/apt-get install -y --no-install-recommends nodejs npm\n.*npm install -g pyright/);
    expect(calls(log)).toEqual([]);

    const declined = await runOmp(["setup", "pyright"], { home: tempDir(), cwd, env, stdin: "n\n" });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain("nothing was run");
    expect(calls(log)).toEqual([]);

    const accepted = await runOmp(["setup", "pyright"], { home: tempDir(), cwd, env, stdin: "y\n" });
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain("pyright: installed");
    expect(calls(log)).toEqual(["apt-get install -y --no-install-recommends nodejs npm", "npm install -g pyright"]);
    // Installed now: nothing runs again.
    const again = await runOmp(["setup", "pyright", "--yes"], { home: tempDir(), cwd, env });
    expect(again.stdout).toContain("pyright: installed");
    expect(calls(log)).toHaveLength(2);
  });

  test("a failing install stops at that command and says so; an unknown feature lists the known ones", async () => {
    const { bin, log } = fakeManagers();
    writeFileSync(join(bin, "apt-get"), `#!/bin/sh\necho "apt-get $*" >> ${log}\nexit 100\n`);
    const failed = await runOmp(["setup", "pyright", "--yes"], { home: tempDir(), cwd: tempDir(), env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("failed (exit 100); nothing after it was run");
    expect(calls(log)).toHaveLength(1);
    const unknown = await runOmp(["setup", "gopls"], { home: tempDir() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("omp setup knows typescript, pyright, clangd, python, browser");
  });
});
