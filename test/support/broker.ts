// `omp auth-broker serve` for e2e tests: started on a free loopback port in a HOME, killed at the
// end of the file that started it.
import { afterAll } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { OMP, cleanEnv } from "./omp.ts";

export interface RunningBroker {
  child: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** The bearer clients need, from `~/.omp/auth-broker.token` in the broker's HOME. */
  token: string;
  output(): string;
}

const running: RunningBroker[] = [];
/**
 * Kills the brokers started so far. This module is evaluated once per `bun test` run, so its own
 * afterAll belongs to the first file that imported it: other files register this themselves.
 */
export function stopBrokers(): void {
  for (const broker of running.splice(0)) broker.child.kill(9);
}
afterAll(stopBrokers);

/** Resolves once the broker says where it listens; rejects with its output if it exits first. */
export async function startBroker(home: string, env: Record<string, string> = {}, bind = "127.0.0.1:0"): Promise<RunningBroker> {
  const child = Bun.spawn([OMP, "auth-broker", "serve", "--bind", bind], { cwd: home, env: cleanEnv(home, env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let out = "";
  const decoder = new TextDecoder();
  const url = await new Promise<string>((resolve, reject) => {
    (async () => {
      for await (const chunk of child.stdout) {
        out += decoder.decode(chunk, { stream: true });
        const match = /auth-broker listening (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      }
      reject(new Error(`broker exited: ${out}${await new Response(child.stderr).text()}`));
    })();
  });
  const token = readFileSync(join(home, ".omp", "auth-broker.token"), "utf8").trim();
  const broker = { child, url, token, output: () => out };
  running.push(broker);
  return broker;
}
