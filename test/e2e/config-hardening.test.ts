// Config and state files under concurrency and hostile input, on the compiled dist/omp: parallel
// `config set`, a config that is a symlink into a dotfiles repo, YAML alias bombs, huge documents,
// devices, and what a bug looks like to the user.
import { describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";

function agentDir(home: string): string {
  const dir = join(home, ".omp", "agent");
  mkdirSync(dir, { recursive: true });
  return dir;
}

const SETTINGS: [string, string, string][] = [
  ["theme", "dark", "theme: dark"],
  ["retry.maxRetries", "3", "maxRetries: 3"],
  ["bash.timeoutSeconds", "42", "timeoutSeconds: 42"],
  ["compaction.reserveTokens", "9000", "reserveTokens: 9000"],
];

describe("omp config set", () => {
  test("4 concurrent sets of different keys all land, round after round", async () => {
    const home = tempDir();
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all(SETTINGS.map(([key, value]) => runOmp(["config", "set", key, value], { home })));
      for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const text = readFileSync(join(home, ".omp", "agent", "config.yml"), "utf8");
      for (const [, , line] of SETTINGS) expect(text).toContain(line);
      for (const [key, value] of SETTINGS) {
        const got = await runOmp(["config", "get", key], { home });
        expect(got.stdout.trim()).toBe(value);
      }
      writeFileSync(join(home, ".omp", "agent", "config.yml"), "");
    }
  });

  test("a symlinked config stays a symlink: the target is written and keeps its mode", async () => {
    const home = tempDir();
    const dotfiles = tempDir();
    const target = join(dotfiles, "omp-config.yml");
    writeFileSync(target, "# my settings\nthinking: high\n");
    chmodSync(target, 0o644);
    const link = join(agentDir(home), "config.yml");
    symlinkSync(target, link);

    const set = await runOmp(["config", "set", "theme", "dark"], { home });
    expect(set.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("# my settings\nthinking: high\ntheme: dark\n");
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });
});

describe("hostile YAML is refused with one clear line, and the run goes on without the file", () => {
  const bomb = () => {
    const names = "abcdefghi";
    const lines = [`a: &a [${Array(9).fill('"lol"').join(", ")}]`];
    for (let i = 1; i < names.length; i++) lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(", ")}]`);
    return `${lines.join("\n")}\n`;
  };
  const ignored = " (the file is ignored until it is fixed)";

  test("a billion-laughs alias bomb in config.yml", async () => {
    const home = tempDir();
    writeFileSync(join(agentDir(home), "config.yml"), bomb());
    const refusal = "omp: ~/.omp/agent/config.yml: refused: its YAML aliases expand to too much data (an alias bomb); remove the anchors and aliases (&name / *name) or flatten the file";
    for (const args of [["config", "get", "theme"], ["config", "set", "theme", "dark"], ["-p", "hi"]]) {
      const started = performance.now();
      const run = await runOmp(args, { home });
      if (args[1] === "set") {
        // An edit needs the file parsed: refused, the file as it was.
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(`${refusal}\n`);
      } else {
        expect(run.stderr.split("\n")[0]).toBe(`${refusal}${ignored}`);
      }
      expect(performance.now() - started).toBeLessThan(10_000);
    }
    expect(readFileSync(join(agentDir(home), "config.yml"), "utf8")).toBe(bomb());
  });

  test("a huge document, a device, and flow nesting thousands deep", async () => {
    const home = tempDir();
    const config = join(agentDir(home), "config.yml");
    writeFileSync(config, `theme: dark\n# ${"x".repeat(2 * 1024 * 1024)}\n`);
    const huge = await runOmp(["config", "get", "theme"], { home });
    expect(huge.code).toBe(0);
    expect(huge.stderr).toMatch(/^omp: ~\/\.omp\/agent\/config\.yml: refused: it is \d+ bytes, over the 1024 KiB a config file may have \(the file is ignored until it is fixed\)\n$/);

    const deep = tempDir();
    writeFileSync(join(agentDir(deep), "config.yml"), `theme: ${"[".repeat(100_000)}\n`);
    const started = performance.now();
    const nested = await runOmp(["config", "get", "theme"], { home: deep });
    expect(nested.code).toBe(0);
    expect(nested.stderr).toContain("refused: its [ ] and { } nest more than 100 levels deep");
    expect(performance.now() - started).toBeLessThan(5_000);

    const device = tempDir();
    symlinkSync("/dev/zero", join(agentDir(device), "config.yml"));
    const zero = await runOmp(["config", "get", "theme"], { home: device });
    expect(zero.code).toBe(0);
    expect(zero.stderr).toBe(`omp: ~/.omp/agent/config.yml: refused: it is 1048577 bytes, over the 1024 KiB a config file may have${ignored}\n`);
  });
});

describe("a bug is one line, not minified bundle source", () => {
  test("an unexpected error prints one line and exits non-zero; OMP_DEBUG=1 adds the stack", async () => {
    const home = tempDir();
    // An agent dir below a file cannot be created: mkdir fails with an error no command expects.
    const run = await runOmp(["config", "set", "theme", "dark"], { home, env: { OMP_AGENT_DIR: "/dev/null/agent" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "omp: internal error: Error: ENOTDIR: not a directory, mkdir '/dev/null/agent' (this is a bug in omp; OMP_DEBUG=1 shows the stack trace)\n",
    );
    const debug = await runOmp(["config", "set", "theme", "dark"], { home, env: { OMP_AGENT_DIR: "/dev/null/agent", OMP_DEBUG: "1" } });
    expect(debug.code).toBe(1);
    expect(debug.stderr.split("\n").length).toBeGreaterThan(2);
    expect(debug.stderr).toContain("    at ");
  });
});
