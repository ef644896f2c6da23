import { readlinkSync, statSync } from "node:fs";
import { commandEnv } from "./env.ts";
import { type SandboxSupport, sandboxSupport } from "./launcher-status.ts";
import { existingProtected, expandPatterns, launcherRules, type SandboxPolicy } from "./policy.ts";
import { filteringProxyPort } from "./proxy.ts";
import { sessionNetwork } from "./session-network.ts";
import { hiddenSockets } from "./sockets.ts";

export interface SandboxedCommand {
  /** What to spawn: the command itself, or a launcher that confines itself and then execs it. */
  argv: string[];
  env: Record<string, string>;
  /** How it is confined; "none" when the policy is off or the machine offers nothing. */
  confinement: "landlock" | "bubblewrap" | "none";
  /** Variables left out of `env` because they hold, or look like they hold, a secret. */
  droppedEnv: string[];
}

export interface SandboxOptions {
  /** Undefined or mode `off`: not confined (the environment is still cleaned). */
  policy: SandboxPolicy | undefined;
  env: Record<string, string | undefined>;
  /** Secret values omp knows: a variable holding one is dropped whatever its name. */
  secrets: readonly string[];
  support?: SandboxSupport;
  /**
   * The network is this loopback port only, a proxy that decides per host (the browser's, which
   * asks the egress policy), whatever `policy.network` says. Landlock enforces the port; bubblewrap
   * cannot single out a port, so there the command gets the host's network and is trusted to use
   * the proxy it is configured with.
   */
  proxyPort?: number;
}

/**
 * Without a network, package managers would retry a lookup that cannot succeed for a minute or
 * more (`npm view` 70 s): one try each, so the refusal is told at once. A user's own value wins.
 */
const NO_RETRIES_ENV: Record<string, string> = { npm_config_fetch_retries: "0", PIP_RETRIES: "0" };

/** bubblewrap's form of the policy: the root read-only, writable trees bound back, denied paths hidden. */
function bubblewrapArgs(support: Extract<SandboxSupport, { kind: "bubblewrap" }>, policy: SandboxPolicy, env: Record<string, string | undefined>): string[] {
  // Its own PID namespace and /proc: no other process's environ or cmdline (bubblewrap is its PID 1).
  const args = [support.bwrap, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"];
  // Mounts apply in order: a home inside a writable tree (/tmp) is made read-only again, then the
  // writable trees inside it (the project, tool caches) are bound back.
  const inHome = (path: string) => path === policy.home || path.startsWith(`${policy.home}/`);
  for (const path of policy.writable.filter((path) => !inHome(path))) args.push("--bind-try", path, path);
  args.push("--ro-bind-try", policy.home, policy.home);
  for (const path of policy.writable.filter(inHome)) args.push("--bind-try", path, path);
  // Hidden: a dir under an empty tmpfs, a file under /dev/null; what does not exist needs nothing.
  for (const path of expandPatterns(policy.denyRead)) {
    let dir: boolean;
    try {
      dir = statSync(path).isDirectory();
    } catch {
      continue;
    }
    args.push(...(dir ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  for (const path of policy.pinned) args.push("--bind-try", path, path);
  for (const path of existingProtected(policy)) args.push("--ro-bind", path, path);
  // connect() on /dev/null is refused, as the launcher's covered sockets are.
  for (const path of hiddenSockets(env, policy.allowSockets)) args.push("--ro-bind", "/dev/null", path);
  if (policy.network === "allow") return [...args, "--"];
  // The session's loopback: bubblewrap cannot join a network, so nsenter puts it in the holder's first.
  const nsenter = Bun.which("nsenter");
  const session = policy.network === "loopback" && support.launcher && nsenter ? sessionNetwork(support.launcher) : undefined;
  if (!session || !nsenter) return [...args, "--unshare-net", "--"];
  const join = [`--net=/proc/${session.pid}/ns/net`];
  if (readlinkSync(`/proc/${session.pid}/ns/user`) !== readlinkSync("/proc/self/ns/user")) join.unshift(`--user=/proc/${session.pid}/ns/user`, "--preserve-credentials");
  return [nsenter, ...join, "--", ...args, "--"];
}

/**
 * The one place a model's command becomes something to spawn: `argv` confined by `policy` (the
 * shell engineer's jobs and PTYs and the session host call this too), with an environment that
 * holds none of omp's secrets.
 */
export function sandboxCommand(argv: string[], options: SandboxOptions): SandboxedCommand {
  const policy = options.policy;
  const offline = policy && policy.mode !== "off" && (policy.network === "off" || policy.network === "loopback");
  const { env, dropped } = commandEnv(offline ? { ...NO_RETRIES_ENV, ...options.env } : options.env, options.secrets, policy?.envAllow ?? []);
  if (!policy || policy.mode === "off") return { argv, env, confinement: "none", droppedEnv: dropped };
  const support = options.support ?? sandboxSupport();
  switch (support.kind) {
    case "landlock": {
      const launch = (network: Parameters<typeof launcherRules>[1], extraEnv: Record<string, string> = {}, rules: SandboxPolicy = policy): SandboxedCommand => ({
        argv: [support.launcher, ...launcherRules(rules, network, support.namespaces), "--", ...argv],
        env: { ...env, ...extraEnv },
        confinement: "landlock",
        droppedEnv: dropped,
      });
      if (options.proxyPort !== undefined) return launch({ proxyPort: options.proxyPort }, {}, { ...policy, network: [] });
      if (policy.network === "loopback") {
        // Where namespaces cannot be made (no user namespaces) a loopback network cannot either:
        // no network then, rather than every command failing to start.
        if (!support.namespaces) return launch({}, {}, { ...policy, network: "off" });
        return launch({ session: sessionNetwork(support.launcher) });
      }
      if (!Array.isArray(policy.network)) return launch({});
      // A host list: the only TCP port the command may reach is the filtering proxy's.
      const port = filteringProxyPort(policy.network);
      const proxy = `http://127.0.0.1:${port}`;
      return launch({ proxyPort: port }, { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, ALL_PROXY: proxy, all_proxy: proxy, NO_PROXY: "", no_proxy: "" });
    }
    case "bubblewrap":
      return { argv: [...bubblewrapArgs(support, options.proxyPort !== undefined ? { ...policy, network: "allow" } : policy, env), ...argv], env, confinement: "bubblewrap", droppedEnv: dropped };
    case "none":
      return { argv, env, confinement: "none", droppedEnv: dropped };
  }
}
