// `omp auth-broker login <provider> --via user@host:port` for real: a private sshd on loopback is the
// broker host (its own HOME, where `omp auth-broker serve` runs), the "laptop" runs in a network
// namespace of its own, and the scripted browser there is sent back to the laptop's localhost,
// which the ssh tunnel carries to the login's callback on the broker host. The token exchange goes
// to the OAuth stand-in; the login ends up in the broker's vault and nowhere on the laptop.
import { afterAll, describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import { filesContaining } from "../support/agent-harness.ts";
import { startBroker, stopBrokers } from "../support/broker.ts";
import { OMP, cleanEnv, tempDir } from "../support/omp.ts";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { getInNamespaceOf, inLaptopNamespace, sshUnavailable, startSshd } from "../support/sshd.ts";

afterAll(stopBrokers);

const unavailable = sshUnavailable();
if (unavailable) console.warn(`auth-broker --via tests skipped: ${unavailable}`);

const oauth = await startOAuthStandin();
afterAll(() => oauth.close());

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

describe("auth-broker login --via", () => {
  test.skipIf(unavailable !== undefined)("logs in on the broker host through an ssh tunnel: the credential lands in the remote broker's vault, never on the laptop", async () => {
    const remoteHome = tempDir("omp-remote-");
    const broker = await startBroker(remoteHome, oauth.env());
    const sshd = await startSshd({ HOME: remoteHome, PATH: `${dirname(OMP)}:/usr/bin:/bin`, LANG: "C.UTF-8", ...oauth.env() });

    const laptopHome = tempDir("omp-laptop-");
    const callbackPort = await freePort();
    const laptop = Bun.spawn(inLaptopNamespace([OMP, "auth-broker", "login", "anthropic", "--via", `${sshd.user}@127.0.0.1:${sshd.port}`]), {
      cwd: laptopHome,
      // The port moved on the laptop is moved on the broker host too: the redirect names it.
      env: cleanEnv(laptopHome, { OMP_SSH_OPTIONS: sshd.sshOptions, OMP_OAUTH_ANTHROPIC_CALLBACK_PORT: String(callbackPort) }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of laptop.stderr) {
          stderr += decoder.decode(chunk, { stream: true });
          const match = /^ {2}(http\S+)$/m.exec(stderr);
          if (match) resolve(match[1]!);
        }
        reject(new Error(`the login ended without a URL:\n${stderr}\nsshd:\n${sshd.output()}`));
      })();
    });
    expect(new URL(url).searchParams.get("redirect_uri")).toBe(`http://localhost:${callbackPort}/callback`);

    // The browser on the laptop: the authorization server is out on the network...
    const authorize = await fetch(url, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    const callback = authorize.headers.get("location")!;
    // ...and its redirect to localhost reaches the login on the broker host only through the tunnel.
    const page = await getInNamespaceOf(laptop.pid, callback);
    expect(page.body).toContain("Logged in");
    laptop.stdin.end();
    expect(await laptop.exited).toBe(0);
    const issued = oauth.issued.at(-1)!;

    // Control: in a namespace without the tunnel the same URL reaches nothing, so the page above came through ssh.
    const outside = Bun.spawnSync(inLaptopNamespace(["curl", "-sS", "--max-time", "5", callback]), { stdout: "pipe", stderr: "pipe" });
    expect(outside.exitCode).not.toBe(0);

    const deadline = Date.now() + 5000;
    let snapshot: any;
    do {
      snapshot = await (await fetch(`${broker.url}/v1/snapshot`, { headers: { authorization: `Bearer ${broker.token}` } })).json();
      if (snapshot.credentials.length > 0) break;
      await Bun.sleep(100);
    } while (Date.now() < deadline);
    expect(snapshot.credentials).toMatchObject([{ provider: "anthropic", identityKey: "email:user@example.com", credential: { type: "oauth", access: issued.access, refresh: "__remote__" } }]);

    expect(existsSync(join(laptopHome, ".omp", "agent", "agent.db"))).toBe(false);
    expect(filesContaining([laptopHome], issued.access)).toEqual([]);
    expect(filesContaining([laptopHome], issued.refresh)).toEqual([]);
    expect(stderr).not.toContain(issued.refresh);
  });

  test("--via refuses what is not user@host[:port], before running ssh", async () => {
    const home = tempDir("omp-laptop-");
    for (const bad of ["-oProxyCommand=touch /tmp/x", "user@host:99999", "user@host;id"]) {
      const child = Bun.spawn([OMP, "auth-broker", "login", "anthropic", "--via", bad], { cwd: home, env: cleanEnv(home), stdout: "pipe", stderr: "pipe" });
      const [err, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect(code).toBe(2);
      expect(err).toContain("--via takes user@host or user@host:port");
    }
  });
});
