// The CLI skeleton: version, help, doctor, the agent placeholder, usage errors.
import { describe, expect, test } from "bun:test";
import { VERSION, doctor, runOmp, tempDir } from "../support/omp.ts";

describe("omp", () => {
  test("--version prints omp/<version> first", async () => {
    for (const flag of ["--version", "-v"]) {
      const result = await runOmp([flag], { home: tempDir() });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`omp/${VERSION}\n`);
    }
  });

  test("--help lists the commands", async () => {
    const result = await runOmp(["--help"], { home: tempDir() });
    expect(result.code).toBe(0);
    for (const command of ["grep", "find", "doctor", "config", "auth", "--print", "--model"]) expect(result.stdout).toContain(command);
    const grepHelp = await runOmp(["grep", "--help"], { home: tempDir() });
    expect(grepHelp.stdout).toContain("--fixed-strings");
    const help = await runOmp(["help"], { home: tempDir() });
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(result.stdout);
    const helpGrep = await runOmp(["help", "grep"], { home: tempDir() });
    expect(helpGrep.stdout).toBe(grepHelp.stdout);
  });

  test("the agent with no model available says what to set and exits 2", async () => {
    const result = await runOmp(["-p", "fix the bug"], { home: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no model available");
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  });

  test("an unknown option is a usage error", async () => {
    const result = await runOmp(["--no-such-flag"], { home: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--no-such-flag");
  });

  test("doctor reports version, platform, variant, cache, load time and SQLite", async () => {
    const home = tempDir();
    const json = await doctor({ home });
    expect(json.code).toBe(0);
    expect(json.report.version).toBe(VERSION);
    expect(json.report.sqlite).toMatch(/^3\.\d+\.\d+$/);
    expect(json.report.natives.loadMs).toBeGreaterThan(0);
    const text = await runOmp(["doctor"], { home });
    expect(text.code).toBe(0);
    for (const key of ["omp", "platform", "variant", "cache dir", "cache", "addon", "load time", "sqlite"]) {
      expect(text.stdout).toMatch(new RegExp(`^${key} +\\S`, "m"));
    }
    expect(text.stdout).toContain("hit");
    expect(text.stdout).toContain(`${process.platform}-${process.arch}`);
  });

  test.skipIf(process.arch !== "x64")("OMP_NATIVE_VARIANT=baseline picks the baseline addon", async () => {
    const { report } = await doctor({ home: tempDir(), env: { OMP_NATIVE_VARIANT: "baseline" } });
    expect(report.natives.variant).toBe("baseline");
    expect(report.natives.variantReason).toBe("OMP_NATIVE_VARIANT=baseline");
    expect(report.natives.addonPath).toEndWith("-baseline.node");
  });
});
