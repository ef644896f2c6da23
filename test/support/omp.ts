import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const OMP = join(ROOT, "dist", "omp");
export const VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;

if (!existsSync(OMP)) {
  throw new Error(`${OMP} is missing: the end-to-end tests run the compiled binary; run \`bun run build\` first (npm test does).`);
}

import { tempDir } from "./temp.ts";

export { tempDir };

let dirName: string | undefined;

/**
 * dist/omp's dir in a natives cache, `<version>+<hash of its files>` (core/natives/cache-key.ts),
 * as a first run in a fresh home names it.
 */
export function nativesDirName(): string {
  if (dirName === undefined) {
    const home = tempDir();
    const run = Bun.spawnSync([OMP, "doctor", "--json"], { cwd: home, env: cleanEnv(home), stdout: "pipe", stderr: "pipe" });
    const addonPath: string | null = JSON.parse(run.stdout.toString()).natives.addonPath;
    if (!addonPath) throw new Error(`omp doctor loaded no addon:\n${run.stderr.toString()}`);
    dirName = basename(dirname(addonPath));
  }
  return dirName;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  home: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Runs the command through another program first, e.g. setpriv or unshare. */
  wrapper?: string[];
  binary?: string;
}

/** The environment omp sees in tests: nothing from the developer's own setup leaks in. */
export function cleanEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: "C.UTF-8",
    TMPDIR: process.env.TMPDIR,
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export async function runOmp(args: string[], options: RunOptions): Promise<RunResult> {
  const child = Bun.spawn([...(options.wrapper ?? []), options.binary ?? OMP, ...args], {
    cwd: options.cwd ?? options.home,
    env: cleanEnv(options.home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** `omp doctor --json`, parsed. */
export async function doctor(options: RunOptions): Promise<{ code: number; report: DoctorJson; stderr: string }> {
  const result = await runOmp(["doctor", "--json"], options);
  let report: DoctorJson;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`omp doctor printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, report, stderr: result.stderr };
}

export interface DoctorJson {
  version: string;
  sqlite: string;
  nativesError: string | null;
  natives: {
    variant: string | null;
    variantReason: string;
    mode: string;
    configuredRoot: { path: string; source: string } | null;
    usedRoot: { path: string; source: string } | null;
    addonPath: string | null;
    state: string;
    notes: string[];
    attempts: { path: string; error: string }[];
    pruned: string[];
    loadMs: number;
  };
}

export function sha256File(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}
