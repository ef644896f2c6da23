import { OMP, cleanEnv, tempDir } from "./omp.ts";

export { UPSTREAMS, type UpstreamCase, writeUpstreamModels } from "./gateway-models.ts";

export interface GatewayProcess {
  url: string;
  token: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the gateway wrote to stderr so far (its request log). */
  stderr(): string;
  stop(): Promise<number>;
  /** Waits for the process to end by itself. */
  exited(): Promise<number>;
}

/** Runs `omp auth-gateway serve` on a free loopback port and waits until it listens. */
export async function startGatewayProcess(home: string, env: Record<string, string> = {}, args: string[] = []): Promise<GatewayProcess> {
  const token = await tokenOf(home, env);
  const proc = Bun.spawn([OMP, "auth-gateway", "serve", "--bind", "127.0.0.1:0", ...args], {
    cwd: home,
    env: cleanEnv(home, { UPSTREAM_KEY: "sk-upstream-test", NO_PROXY: "127.0.0.1,localhost", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  const deadline = Date.now() + 20_000;
  let url: string | undefined;
  while (!url) {
    url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    if (url) break;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the gateway did not start (exit ${proc.exitCode}):\n${text}`);
    await Bun.sleep(20);
  }
  return {
    url,
    token,
    proc,
    stderr: () => text,
    async stop() {
      proc.kill("SIGTERM");
      const code = await proc.exited;
      await pump;
      return code;
    },
    async exited() {
      const code = await proc.exited;
      await pump;
      return code;
    },
  };
}

export async function tokenOf(home: string, env: Record<string, string> = {}): Promise<string> {
  const child = Bun.spawn([OMP, "auth-gateway", "token"], { cwd: home, env: cleanEnv(home, env), stdio: ["ignore", "pipe", "pipe"] });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`omp auth-gateway token failed: ${await new Response(child.stderr).text()}`);
  return out.trim();
}

export function gatewayHome(): string {
  return tempDir("omp-gateway-");
}
