// The home and temp directories are read from the environment the way node:os reads them.
import { afterEach, expect, test } from "bun:test";
import { homedir, tmpdir } from "node:os";
import { agentDir, homeDir, tempDir } from "../../core/paths.ts";

const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test("homeDir follows HOME as os.homedir() does at start-up, and falls back to it when HOME is unset", () => {
  // The run's own HOME (test/support/test-home.ts), set after start-up: os.homedir() still says the first one.
  expect(homeDir()).toBe(process.env.HOME!);
  process.env.HOME = "/home/someone-else";
  expect(homeDir()).toBe("/home/someone-else");
  delete process.env.HOME;
  expect(homeDir()).toBe(homedir());
  expect(homeDir().length).toBeGreaterThan(0);
});

test("tempDir matches os.tmpdir() for TMPDIR, TMP, TEMP, a trailing slash and nothing set", () => {
  const cases: Record<string, string | undefined>[] = [
    { TMPDIR: "/var/tmp/x" },
    { TMPDIR: "/var/tmp/y/" },
    { TMPDIR: "/" },
    { TMP: "/scratch" },
    { TEMP: "/scratch2" },
    { TMPDIR: "", TMP: "/scratch3" },
    {},
  ];
  for (const env of cases) {
    for (const name of ["TMPDIR", "TMP", "TEMP"]) {
      if (env[name] === undefined) delete process.env[name];
      else process.env[name] = env[name];
    }
    expect(tempDir()).toBe(tmpdir());
  }
});

test("agentDir: OMP_AGENT_DIR, else the original omp's PI_CODING_AGENT_DIR, else ~/.omp/agent of the environment's HOME", () => {
  expect(agentDir({ HOME: "/h" })).toBe("/h/.omp/agent");
  expect(agentDir({})).toBe(`${homeDir()}/.omp/agent`);
  expect(agentDir({ HOME: "/h", OMP_AGENT_DIR: "~/elsewhere" })).toBe("/h/elsewhere");
  expect(agentDir({ PI_CODING_AGENT_DIR: "/srv/pi-agent" })).toBe("/srv/pi-agent");
  expect(agentDir({ PI_CODING_AGENT_DIR: "/srv/pi-agent", OMP_AGENT_DIR: "/srv/omp-agent" })).toBe("/srv/omp-agent");
});
