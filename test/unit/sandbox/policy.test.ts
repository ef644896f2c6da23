// The sandbox's policy builder, environment cleaning, prefixes and redaction, from source; and the
// real launcher (native/out) enforcing a policy on a temp home: denied paths unreadable even
// through symlinks and name patterns, their siblings readable, writes only where granted.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/temp.ts";
import { commandEnv } from "../../../core/sandbox/env.ts";
import { classifyRefusal, commandPrefix, looksRefused, prefixCovers } from "../../../core/sandbox/denial.ts";
import { buildPolicy, launcherRules, type SandboxSettings } from "../../../core/sandbox/policy.ts";
import { sandboxCommand } from "../../../core/sandbox/wrap.ts";
import { sandboxSupport } from "../../../core/sandbox/launcher-status.ts";
import { showCommand } from "../../../core/tools/approval.ts";
import { Redactor } from "../../../core/session/redact.ts";
import { sandboxStartup } from "../../../core/sandbox/startup.ts";
import type { Settings } from "../../../core/config/settings-schema.ts";

const SETTINGS: SandboxSettings = { mode: "workspace-write", network: "off", writable: [], denyRead: [], envAllow: [], allowSockets: [] };

describe("buildPolicy", () => {
  test("workspace-write: the repository root, --add-dir, temp dirs, tool caches and the user's list are writable; credential stores denied", () => {
    const home = tempDir("omp-policy-home-");
    const repo = tempDir("omp-policy-repo-");
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "pkg", "src"), { recursive: true });
    const policy = buildPolicy({ settings: { ...SETTINGS, writable: ["~/work"], denyRead: ["~/secrets.txt"] }, cwd: join(repo, "pkg", "src"), addDirs: ["/srv/data"], home, env: { TMPDIR: "/var/tmp/me" } });
    expect(policy.writable[0]).toBe(repo);
    expect(policy.writable).toEqual(expect.arrayContaining(["/srv/data", "/tmp", "/var/tmp/me", join(home, ".cache"), join(home, ".npm"), join(home, ".cargo/registry"), join(home, ".bun/install/cache"), join(home, "work"), "/dev/null"]));
    expect(policy.writable).not.toContain(home);
    expect(policy.denyRead).toEqual(
      expect.arrayContaining([join(home, ".ssh"), join(home, ".gnupg"), join(home, ".aws"), join(home, ".docker/config.json"), join(home, ".git-credentials"), join(home, ".config/gh"), join(home, ".omp/agent/agent.db*"), join(home, ".omp/*.token"), join(home, "secrets.txt")]),
    );
  });

  test("read-only writes nothing but devices; the launcher's rules say read /, write, deny and the network", () => {
    const home = tempDir("omp-policy-home-");
    const readOnly = buildPolicy({ settings: { ...SETTINGS, mode: "read-only" }, cwd: home, addDirs: [], home, env: {} });
    expect(readOnly.writable.every((path) => path.startsWith("/dev/"))).toBe(true);
    const rules = launcherRules(readOnly);
    expect(rules.slice(0, 2)).toEqual(["-r", "/"]);
    expect(rules).toContain("-d");
    expect(rules).not.toContain("-n");
    expect(launcherRules({ ...readOnly, network: "allow" })).toContain("-n");
    expect(launcherRules(readOnly, { proxyPort: 4242 }).slice(-2)).toEqual(["-p", "4242"]);
    // Without user namespaces: -x, and no binds or sockets the launcher could not make.
    const repo = tempDir("omp-policy-repo-");
    mkdirSync(join(repo, ".git", "hooks"), { recursive: true });
    writeFileSync(join(repo, ".env.local"), "X=1\n");
    const project = buildPolicy({ settings: SETTINGS, cwd: repo, addDirs: [], home, env: {} });
    expect(project.allowSockets).toEqual([repo]);
    const bound = launcherRules(project).flatMap((rule, i, all) => (all[i - 1] === "-P" ? [rule] : []));
    expect(bound).toEqual([join(repo, ".git", "hooks"), join(repo, ".env.local")]);
    expect(launcherRules(project, {}, false)).toContain("-x");
    expect(launcherRules(project, {}, false)).not.toContain("-K");
    expect(launcherRules(project)).toContain("-K");
    expect(launcherRules({ ...project, network: "loopback" }, { session: { pid: 42, inode: 7 } }).slice(-2)).toEqual(["-L", "42:7"]);
    // Where namespaces cannot be made, the default loopback becomes no network rather than a launcher that cannot start.
    const noNamespaces = sandboxCommand(["true"], { policy: { ...project, network: "loopback" }, env: {}, secrets: [], support: { kind: "landlock", launcher: "/x", abi: 7, namespaces: false } });
    expect(noNamespaces.argv).toContain("-x");
    expect(noNamespaces.argv.some((arg) => arg === "-l" || arg === "-L")).toBe(false);
  });
});

describe("command environment", () => {
  test("drops omp's credentials, names like secrets and any variable holding a known secret; envAllow puts names back", () => {
    const { env, dropped } = commandEnv(
      { PATH: "/bin", HOME: "/h", ANTHROPIC_API_KEY: "a", OMP_AUTH_BROKER_TOKEN: "b", GITHUB_TOKEN: "c", GH_TOKEN: "d", AWS_SECRET_ACCESS_KEY: "e", DB_PASSWORD: "f", innocent: "the-known-secret-value", EDITOR: "vi" },
      ["the-known-secret-value"],
      ["GH_TOKEN"],
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", GH_TOKEN: "d", EDITOR: "vi" });
    expect(dropped.sort()).toEqual(["ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "OMP_AUTH_BROKER_TOKEN", "innocent"]);
  });
});

describe("prefixes and what approvals show", () => {
  test("a prefix is the program, with its subcommand for tools that have them; it covers only plain commands", () => {
    expect(commandPrefix("npm test -- --watch")).toBe("npm test");
    expect(commandPrefix("git push origin main")).toBe("git push");
    expect(commandPrefix("echo hello")).toBe("echo");
    expect(commandPrefix("  ls -la")).toBe("ls");
    expect(prefixCovers("npm test", "npm test --coverage")).toBe(true);
    expect(prefixCovers("npm test", "npm testing")).toBe(false);
    expect(prefixCovers("npm test", "npm test; curl x")).toBe(false);
    expect(prefixCovers("npm test", "npm test $(cat ~/.ssh/id_rsa)")).toBe(false);
    expect(prefixCovers("npm test", "npm test > /etc/x")).toBe(false);
  });

  test("showCommand keeps every character, collapses blank runs, shows control characters", () => {
    expect(showCommand(`a${" ".repeat(400)}b\t\tc\nd\u202ee\x07`)).toBe("a b c ⏎ d<U+202E>e^G");
  });

  test("refusals are recognised in common tools' words", () => {
    expect(looksRefused("cat: /root/.ssh/id_rsa: Permission denied")).toBe(true);
    expect(looksRefused("curl: (7) Failed to connect to 127.0.0.1 port 80")).toBe(true);
    expect(looksRefused("PermissionError: [Errno 1] Operation not permitted")).toBe(true);
    expect(looksRefused("2 tests failed")).toBe(false);
    expect(classifyRefusal("curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms")).toEqual({ kind: "network", line: "curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms", target: "127.0.0.1" });
    expect(classifyRefusal("Error connecting to agent: Connection refused")?.kind).toBe("socket");
    expect(classifyRefusal("npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org")).toMatchObject({ kind: "dns", target: "registry.npmjs.org" });
    expect(classifyRefusal("error: could not write config file .git/config: Device or resource busy")).toMatchObject({ kind: "file", target: ".git/config" });
    const traceback = (call: string) => `Traceback (most recent call last):\n  File "/usr/lib/python3.11/socketserver.py", line 456, in __init__\n    ${call}\nPermissionError: [Errno 1] Operation not permitted`;
    expect(classifyRefusal(traceback("self.server_bind()"))?.kind).toBe("bind");
    expect(classifyRefusal(traceback("sock = socket(af, socktype, proto)"))?.kind).toBe("network");
    expect(classifyRefusal("Error: listen EACCES: permission denied 127.0.0.1:3000")?.kind).toBe("bind");
  });
});

describe("redaction", () => {
  test("AWS key ids and JWTs are redacted by shape; known values whatever their shape", () => {
    const redactor = new Redactor(["plain-known-secret"]);
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXBhcnQ";
    const text = redactor.redact(`k=AKIAABCDEFGHIJKLMNOP t=${jwt} p=plain-known-secret gh=ghp_${"a".repeat(36)} ant=sk-ant-api03-${"x1".repeat(20)}`);
    expect(text).toBe("k=[REDACTED] t=[REDACTED] p=[REDACTED] gh=[REDACTED] ant=[REDACTED]");
    expect(redactor.redact("AKIA is a prefix; eyJ alone is fine")).toBe("AKIA is a prefix; eyJ alone is fine");
  });
});

const support = sandboxSupport();

describe.skipIf(support.kind !== "landlock")("the launcher on this kernel", () => {
  function run(policyHome: string, cwd: string, script: string) {
    const policy = buildPolicy({ settings: SETTINGS, cwd, addDirs: [], home: policyHome, env: {} });
    const spawn = sandboxCommand(["bash", "-c", script], { policy, env: { PATH: process.env.PATH, HOME: policyHome }, secrets: [] });
    expect(spawn.confinement).toBe("landlock");
    const result = Bun.spawnSync(spawn.argv, { cwd, env: spawn.env, stdout: "pipe", stderr: "pipe" });
    return { code: result.exitCode, out: result.stdout.toString() + result.stderr.toString() };
  }

  test("denied paths stay unreadable through a symlink and a name pattern; their siblings and the rest of home read fine", () => {
    const home = tempDir("omp-launch-home-");
    const repo = join(home, "project");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE");
    mkdirSync(join(home, ".docker"));
    writeFileSync(join(home, ".docker", "config.json"), "DOCKER-AUTH");
    writeFileSync(join(home, ".docker", "daemon.json"), "daemon-ok");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "agent.db-wal"), "VAULT-WAL");
    writeFileSync(join(home, ".omp", "agent", "config.yml"), "config-ok");
    writeFileSync(join(home, ".bashrc"), "bashrc-ok");
    symlinkSync(join(home, ".ssh"), join(home, "innocent-link"));
    mkdirSync(repo);
    const { out } = run(home, repo, "for f in ~/.ssh/id_rsa ~/innocent-link/id_rsa ~/.docker/config.json ~/.omp/agent/agent.db-wal ~/.docker/daemon.json ~/.omp/agent/config.yml ~/.bashrc; do cat $f; echo; done; ls ~/.ssh");
    for (const secret of ["PRIVATE", "DOCKER-AUTH", "VAULT-WAL"]) expect(out).not.toContain(secret);
    for (const fine of ["daemon-ok", "config-ok", "bashrc-ok", "id_rsa"]) expect(out).toContain(fine);
  });

  test("writes land in the project and a tool cache, not in home or /etc; the network is off", () => {
    const home = tempDir("omp-launch-home-");
    const repo = join(home, "project");
    mkdirSync(join(home, ".ssh"));
    mkdirSync(join(home, ".cache"));
    mkdirSync(repo);
    const { out } = run(home, repo, "echo p > p.txt; echo c > ~/.cache/c.txt; echo h > ~/h.txt; echo e > /etc/omp-test-e; echo s > ~/.ssh/authorized_keys; exec 3<>/dev/tcp/127.0.0.1/9 && echo connected");
    expect(readFileSync(join(repo, "p.txt"), "utf8")).toBe("p\n");
    expect(readFileSync(join(home, ".cache", "c.txt"), "utf8")).toBe("c\n");
    expect(existsSync(join(home, "h.txt")) || existsSync("/etc/omp-test-e") || existsSync(join(home, ".ssh", "authorized_keys"))).toBe(false);
    expect(out).not.toContain("connected");
  });
});

describe("start-up without a sandbox", () => {
  const none = { kind: "none" as const, why: "this kernel has no Landlock (or it is disabled), and bubblewrap (bwrap) is not installed" };
  const settings = () => ({ approvalMode: "yolo", sandbox: { ...SETTINGS } }) as unknown as Settings;

  test("says commands are not sandboxed and makes them ask first, unless the user chose an approval mode", () => {
    const fresh = settings();
    const line = sandboxStartup(fresh, [], none);
    expect(line).toContain("NOT SANDBOXED");
    expect(line).toContain("approval mode write");
    expect(fresh.approvalMode).toBe("write");
    const chosen = settings();
    expect(sandboxStartup(chosen, [{ kind: "global", values: { approvalMode: "yolo" } }], none)).toContain("NOT SANDBOXED");
    expect(chosen.approvalMode).toBe("yolo");
  });

  test("nothing to say where Landlock works, or with --sandbox off", () => {
    const fresh = settings();
    expect(sandboxStartup(fresh, [], { kind: "landlock", launcher: "/x", abi: 7, namespaces: true })).toBeUndefined();
    expect(sandboxStartup(fresh, [], { kind: "landlock", launcher: "/x", abi: 7, namespaces: false })).toContain("without PID/mount namespaces");
    expect(fresh.approvalMode).toBe("yolo");
    const off = settings();
    off.sandbox.mode = "off";
    expect(sandboxStartup(off, [], none)).toBeUndefined();
  });
});

const bwrap = Bun.which("bwrap");

describe.skipIf(!bwrap)("the bubblewrap fallback", () => {
  test("denied paths are hidden, writes outside the writable trees fail, the network is gone", () => {
    const home = tempDir("omp-bwrap-home-");
    const repo = join(home, "project");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE");
    mkdirSync(repo);
    const policy = buildPolicy({ settings: SETTINGS, cwd: repo, addDirs: [], home, env: {} });
    const spawn = sandboxCommand(["bash", "-c", "cat ~/.ssh/id_rsa; echo p > p.txt; echo h > ~/h.txt; exec 3<>/dev/tcp/127.0.0.1/9 && echo connected; echo end"], {
      policy,
      env: { PATH: process.env.PATH, HOME: home },
      secrets: [],
      support: { kind: "bubblewrap", bwrap: bwrap!, why: "forced by the test" },
    });
    expect(spawn.confinement).toBe("bubblewrap");
    const result = Bun.spawnSync(spawn.argv, { cwd: repo, env: spawn.env, stdout: "pipe", stderr: "pipe" });
    const out = result.stdout.toString() + result.stderr.toString();
    expect(out).toContain("end");
    expect(out).not.toContain("PRIVATE");
    expect(out).not.toContain("connected");
    expect(readFileSync(join(repo, "p.txt"), "utf8")).toBe("p\n");
    expect(existsSync(join(home, "h.txt"))).toBe(false);
  });

  test("own processes only, protected paths read-only, sockets covered, and the session's loopback shared", async () => {
    const home = tempDir("omp-bwrap-home-");
    const repo = join(home, "project");
    mkdirSync(join(repo, ".git"), { recursive: true });
    writeFileSync(join(repo, ".git", "config"), "[core]\n");
    const sockets = `/run/omp-bwrap-${crypto.randomUUID()}`;
    mkdirSync(sockets);
    const server = Bun.listen({ unix: join(sockets, "agent.sock"), socket: { data() {} } });
    const launcher = sandboxSupport();
    const support = { kind: "bubblewrap" as const, bwrap: bwrap!, why: "forced by the test", ...(launcher.kind === "landlock" ? { launcher: launcher.launcher } : {}) };
    const policy = buildPolicy({ settings: { ...SETTINGS, network: "loopback" }, cwd: repo, addDirs: [], home, env: {} });
    const run = (script: string) => {
      const spawn = sandboxCommand(["bash", "-c", script], { policy, env: { PATH: process.env.PATH, HOME: home }, secrets: [], support });
      return Bun.spawn(spawn.argv, { cwd: repo, env: spawn.env, stdout: "pipe", stderr: "pipe" });
    };
    const output = async (proc: ReturnType<typeof run>) => (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text());
    try {
      const seen = await output(
        run(`ls /proc | grep -c '^[0-9]'; echo x >> .git/config; python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${sockets}/agent.sock")'`),
      );
      expect(Number(seen.split("\n")[0])).toBeLessThanOrEqual(6);
      expect(seen).toContain("Read-only file system");
      expect(seen).toContain("Connection refused");
      expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe("[core]\n");
      // The launcher (without Landlock, the bubblewrap case) holds the network bubblewrap joins.
      expect(support.launcher).toBeDefined();
      const listening = run(`python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); s.accept()[0].send(b"pong")'`);
      const reader = listening.stdout.getReader();
      const port = new TextDecoder().decode((await reader.read()).value).trim();
      expect(await output(run(`python3 -c 'import socket; print(socket.create_connection(("127.0.0.1", ${port})).recv(4).decode())'`))).toContain("pong");
      await listening.exited;
    } finally {
      server.stop(true);
      rmSync(sockets, { recursive: true, force: true });
    }
  });
});

describe("git worktrees", () => {
  test("a worktree's git dirs, outside it, are writable so git commit works there", () => {
    const main = tempDir("omp-policy-main-");
    const wt = tempDir("omp-policy-wt-");
    mkdirSync(join(main, ".git", "worktrees", "wt"), { recursive: true });
    writeFileSync(join(main, ".git", "worktrees", "wt", "commondir"), "../..\n");
    writeFileSync(join(wt, ".git"), `gitdir: ${join(main, ".git", "worktrees", "wt")}\n`);
    const policy = buildPolicy({ settings: SETTINGS, cwd: wt, addDirs: [], home: tempDir("omp-policy-home-"), env: {} });
    expect(policy.writable.slice(0, 3)).toEqual([wt, join(main, ".git", "worktrees", "wt"), join(main, ".git")]);
  });
});
