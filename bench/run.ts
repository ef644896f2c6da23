/**
 * Benchmarks for the single binary (`bun run bench`), timed with hyperfine on this machine, each
 * against its reference in the same run. Writes bench/results/binary.json and binary.md.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../embed/build.ts";
import { hyperfineRounds } from "./hyperfine.ts";
import { makeTree } from "./tree.ts";
import { ROOT, RESULTS } from "./paths.ts";

const WORK = join(ROOT, "bench", "work");
const OMP = join(ROOT, "dist", "omp");

async function run(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = Bun.spawn(args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`${args[0]} failed`);
  return out;
}

const ms = (seconds: number) => Math.round(seconds * 100000) / 100;

async function main(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const home = join(WORK, "home");
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const env = { HOME: home };

  // 1. --version against an empty program compiled with the same flags.
  const empty = join(WORK, "empty");
  await run([process.execPath, "build", ...COMPILE_FLAGS, join(ROOT, "bench", "empty.ts"), "--outfile", empty]);
  const [version, floor] = await hyperfineRounds("version", [`${OMP} --version`, empty], { workDir: WORK, runs: 50, rounds: 6, warmup: 10, env });

  // 2. First run (extract + load) against a cache hit, both loading the addon for a tiny search.
  const small = join(WORK, "small");
  mkdirSync(small, { recursive: true });
  writeFileSync(join(small, "a.txt"), "needle\n");
  const natives = join(WORK, "natives");
  const grepSmall = `${OMP} grep needle ${small}`;
  const nativesEnv = { ...env, OMP_NATIVES_DIR: natives };
  const [hit] = await hyperfineRounds("cache-hit", [grepSmall], { workDir: WORK, runs: 60, rounds: 1, warmup: 5, env: nativesEnv });
  const [first] = await hyperfineRounds("first-run", [grepSmall], { workDir: WORK, runs: 40, rounds: 1, warmup: 0, flags: ["--prepare", `rm -rf ${natives}`], env: nativesEnv });

  // 3. grep over 20,000 files against rg (parallel, unsorted: its fastest mode).
  const tree = makeTree(join(WORK, "tree"));
  const pattern = "token_(cache|stream)";
  const oursOut = await run([OMP, "grep", pattern, tree], env);
  const rgOut = await run(["rg", "--no-config", "-n", "--no-heading", pattern, tree]);
  const sorted = (text: string) => text.trim().split("\n").sort();
  const same = JSON.stringify(sorted(oursOut)) === JSON.stringify(sorted(rgOut));
  if (!same) throw new Error("omp grep and rg disagree on the benchmark tree");
  const matches = sorted(oursOut).length;
  const [grep, rg] = await hyperfineRounds("grep-tree", [`${OMP} grep ${pattern} ${tree}`, `rg --no-config -n --no-heading ${pattern} ${tree}`], {
    workDir: WORK,
    runs: 10,
    rounds: 3,
    warmup: 2,
    flags: ["--output", "pipe"],
    env,
  });

  const size = statSync(OMP).size;
  const gz = Bun.gzipSync(readFileSync(OMP), { level: 9 }).length;

  const results = {
    date: new Date().toISOString(),
    machine: `${process.platform}-${process.arch}, ${navigator.hardwareConcurrency} cores`,
    bun: Bun.version,
    version: { ompMs: ms(version!.median), floorMs: ms(floor!.median), ratio: version!.median / floor!.median, target: 1.1 },
    firstRun: { firstMs: ms(first!.mean), hitMs: ms(hit!.mean), addedMs: ms(first!.mean - hit!.mean), targetAddedMs: 40 },
    grep: { files: 20000, matches, ompMs: ms(grep!.median), rgMs: ms(rg!.median), ratio: grep!.median / rg!.median, target: 1.25 },
    binary: { bytes: size, mb: Math.round(size / 1e4) / 100, gzipMb: Math.round(gz / 1e4) / 100, targetMb: 125 },
  };
  writeFileSync(join(RESULTS, "binary.json"), `${JSON.stringify(results, null, 2)}\n`);
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  const md = [
    `# Single-binary benchmarks`,
    ``,
    `${results.date.slice(0, 10)} · ${results.machine} · bun ${results.bun} · hyperfine; \`--version\` and grep: medians of interleaved rounds (bench/hyperfine.ts), first run: means`,
    ``,
    `| what | omp | reference | ratio / delta | target | |`,
    `|---|---|---|---|---|---|`,
    `| \`omp --version\` vs empty compiled program | ${results.version.ompMs} ms | ${results.version.floorMs} ms | ${results.version.ratio.toFixed(2)}× | ≤ 1.1× (medians) | ${verdict(results.version.ratio <= 1.1)} |`,
    `| first run (extract + load) vs cache hit | ${results.firstRun.firstMs} ms | ${results.firstRun.hitMs} ms | +${results.firstRun.addedMs} ms | < 40 ms | ${verdict(results.firstRun.addedMs < 40)} |`,
    `| \`omp grep\` vs \`rg\`, 20,000 files, ${matches} matches (output to a pipe) | ${results.grep.ompMs} ms | ${results.grep.rgMs} ms | ${results.grep.ratio.toFixed(2)}× | ≤ 1.25× | ${verdict(results.grep.ratio <= 1.25)} |`,
    `| binary size, linux-x64 | ${results.binary.mb} MB (gzip ${results.binary.gzipMb} MB) | | | ≤ 125 MB | ${verdict(results.binary.mb <= 125)} |`,
    ``,
  ].join("\n");
  writeFileSync(join(RESULTS, "binary.md"), md);
  console.log(md);
}

await main();
