/**
 * Spawning a CLI and timing it against the provider stand-in, for the start-up and loop
 * benchmarks. The stand-in stamps each request when it arrives and when its response is handed
 * over, on the clock `now` reads, so a spawn's stamp and a request's compare directly.
 */
import type { RecordedRequest, Standin } from "../test/support/standin/index.ts";
import { now } from "./stats.ts";

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
}

export interface TimedRun {
  started: number;
  ended: number;
  code: number;
  stderr: string;
}

/** Runs `argv` to its exit, stdout discarded, stderr kept for the error a failed run throws. */
export async function spawnTimed(argv: string[], options: SpawnOptions): Promise<TimedRun> {
  const started = now();
  const child = Bun.spawn(argv, { cwd: options.cwd, env: options.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  return { started, ended: now(), code, stderr };
}

/** The model requests the stand-in answered (it also serves GETs: model lists). */
export const posts = (standin: Standin): RecordedRequest[] => standin.requests.filter((r) => r.method === "POST");

/**
 * Spawn to the arrival of the first request `matches` picks (the first POST when none is given),
 * with the stand-in's record cleared first. Throws when the run failed or sent no such request.
 */
export async function timeToRequest(standin: Standin, argv: string[], options: SpawnOptions & { matches?: (request: RecordedRequest) => boolean }): Promise<number> {
  standin.requests.length = 0;
  const run = await spawnTimed(argv, options);
  if (run.code !== 0) throw new Error(`${argv.slice(0, 3).join(" ")} … failed (${run.code}): ${run.stderr.slice(-500)}`);
  const request = posts(standin).find(options.matches ?? (() => true));
  if (!request) throw new Error(`${argv.slice(0, 3).join(" ")} … sent no matching request (${posts(standin).length} POSTs)`);
  return request.receivedAt - run.started;
}

/**
 * What the client spends per tool round trip outside the provider, over a session whose every
 * request but the last answered with a tool call: from request `from`'s arrival to the last one's,
 * less the time the stand-in took to answer, per step.
 */
export function perStepOutsideProvider(requests: RecordedRequest[], from = 0): number {
  const span = requests.at(-1)!.receivedAt - requests[from]!.receivedAt;
  const inProvider = requests.slice(from, -1).reduce((sum, r) => sum + (r.respondedAt! - r.receivedAt), 0);
  return (span - inProvider) / (requests.length - 1 - from);
}
