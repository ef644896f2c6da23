// A private sshd for e2e tests: its own host key, authorized_keys and config in a temp dir, on a
// free loopback port, as the current user; and a "laptop" in its own network namespace, whose
// loopback is its own (so a tunnel's listening port there cannot collide with the same port on
// the "remote" host) and which reaches the sshd only through ssh's ProxyCommand.
import { afterAll } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { tempDir } from "./temp.ts";

export const SSHD = "/usr/sbin/sshd";

/** Why the ssh tests cannot run here, or undefined when they can. */
export function sshUnavailable(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is missing (install openssh-server; .ci/setup does)`;
  if (!Bun.which("ssh")) return "the ssh client is missing (install openssh-client)";
  const netns = Bun.spawnSync(["unshare", "-n", "true"], { stdout: "ignore", stderr: "ignore" });
  if (netns.exitCode !== 0) return "network namespaces are not available (unshare -n failed): the laptop side needs its own loopback";
  return undefined;
}

export interface PrivateSshd {
  port: number;
  user: string;
  /** Arguments for OMP_SSH_OPTIONS: an ssh_config with the key, the known-hosts file and the way out of the laptop's namespace. */
  sshOptions: string;
  /** The client's private key and the known-hosts file, for tests that write their own ssh_config. */
  clientKey: string;
  knownHosts: string;
  output(): string;
}

function keygen(path: string): void {
  const result = Bun.spawnSync(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`ssh-keygen failed: ${result.stderr.toString()}`);
}

const running: Subprocess[] = [];
afterAll(() => {
  for (const child of running.splice(0)) child.kill(9);
});

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/**
 * Starts sshd; every session it runs gets `environment` (PermitUserEnvironment through
 * authorized_keys), which is how the test makes the "remote" host's HOME and PATH its own.
 */
export async function startSshd(environment: Record<string, string>): Promise<PrivateSshd> {
  const dir = tempDir("omp-sshd-");
  keygen(join(dir, "host_key"));
  keygen(join(dir, "client_key"));
  const clientKey = (await Bun.file(join(dir, "client_key.pub")).text()).trim();
  const options = Object.entries(environment)
    .map(([name, value]) => `environment="${name}=${value.replaceAll('"', '\\"')}"`)
    .join(",");
  writeFileSync(join(dir, "authorized_keys"), `${options} ${clientKey}\n`, { mode: 0o600 });
  const port = await freePort();
  writeFileSync(
    join(dir, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host_key")}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "StrictModes no",
      "PermitUserEnvironment yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "AllowTcpForwarding yes",
      "LogLevel VERBOSE",
      "",
    ].join("\n"),
  );
  // Run as root, sshd wants its privilege-separation directory.
  if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const child = Bun.spawn([SSHD, "-D", "-e", "-f", join(dir, "sshd_config")], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  running.push(child);
  let out = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) out += decoder.decode(chunk, { stream: true });
  })();
  const deadline = Date.now() + 10_000;
  while (!/Server listening on 127\.0\.0\.1 port/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start (exit ${child.exitCode}):\n${out}`);
    await Bun.sleep(20);
  }

  // The laptop's ssh runs in another network namespace: its way to the sshd is a byte pipe run back in this one.
  writeFileSync(
    join(dir, "pipe.ts"),
    `const socket = await Bun.connect({ hostname: Bun.argv[2], port: Number(Bun.argv[3]), socket: { data: (_s, data) => void process.stdout.write(data), close: () => process.exit(0), error: () => process.exit(1) } });
for await (const chunk of Bun.stdin.stream()) socket.write(chunk);
socket.end();
`,
  );
  writeFileSync(
    join(dir, "ssh_config"),
    [
      "Host *",
      `  IdentityFile ${join(dir, "client_key")}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${join(dir, "known_hosts")}`,
      "  StrictHostKeyChecking no",
      "  BatchMode yes",
      "  LogLevel ERROR",
      `  ProxyCommand nsenter --net=/proc/${process.pid}/ns/net ${process.execPath} ${join(dir, "pipe.ts")} %h %p`,
      "",
    ].join("\n"),
  );
  return { port, user: Bun.spawnSync(["id", "-un"]).stdout.toString().trim(), sshOptions: `-F ${join(dir, "ssh_config")}`, clientKey: join(dir, "client_key"), knownHosts: join(dir, "known_hosts"), output: () => out };
}

/** Runs `argv` in a new network namespace with only its loopback up: the laptop. */
export function inLaptopNamespace(argv: string[]): string[] {
  return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", ...argv];
}

/** A GET made from inside the network namespace of process `pid`: the laptop's browser. */
export async function getInNamespaceOf(pid: number, url: string): Promise<{ code: number; body: string }> {
  const child = Bun.spawn(["nsenter", `--net=/proc/${pid}/ns/net`, "curl", "-sS", "--max-time", "20", url], { stdout: "pipe", stderr: "pipe" });
  const [body, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, body: body || err };
}
