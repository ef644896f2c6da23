// `omp relay serve` for e2e tests: a relay on a free loopback port, stopped at the end of the file;
// its clients are in relay-client.ts.
import { afterAll } from "bun:test";
import type { Subprocess } from "bun";
import { OMP, cleanEnv } from "./omp.ts";
import { waitUntil } from "./relay-client.ts";

export { RelayClient, SealedHost, TEST_HOST_CLAIM, rawGuest, waitUntil } from "./relay-client.ts";

export interface RelayProcess {
  child: Subprocess<"ignore", "pipe", "pipe">;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Everything it wrote to stderr so far: the banner and its log. */
  log(): string;
  stop(): Promise<number>;
}

const running: RelayProcess[] = [];
afterAll(() => {
  for (const relay of running.splice(0)) relay.child.kill(9);
});

/** Resolves once the relay says where it listens; rejects with its output if it exits first. */
export async function startRelay(home: string, args: string[] = []): Promise<RelayProcess> {
  const child = Bun.spawn([OMP, "relay", "serve", "--port", "0", ...args], { cwd: home, env: cleanEnv(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let text = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of child.stderr) text += decoder.decode(chunk, { stream: true });
  })();
  const url = await waitUntil(() => /listening on (http:\/\/\S+)/.exec(text)?.[1], () => (child.exitCode !== null ? `the relay exited (${child.exitCode}):\n${text}` : undefined), 20_000);
  const relay: RelayProcess = {
    child,
    url,
    log: () => text,
    async stop() {
      child.kill("SIGTERM");
      const code = await child.exited;
      await pump;
      return code;
    },
  };
  running.push(relay);
  return relay;
}

