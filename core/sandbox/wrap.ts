import { readdirSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { commandEnv } from "./env.ts";
import { type SandboxSupport, sandboxSupport } from "./launcher-status.ts";
import { launcherRules, type SandboxPolicy } from "./policy.ts";
import { filteringProxyPort } from "./proxy.ts";

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
}

/** Denied paths with a trailing `*`, as the files that match now (bubblewrap has no patterns). */
function expandDenied(paths: string[]): string[] {
  return paths.flatMap((path) => {
    if (!path.endsWith("*")) return [path];
    const stem = basename(path.slice(0, -1));
    try {
      return readdirSync(dirname(path))
        .filter((name) => name.startsWith(stem))
        .map((name) => `${dirname(path)}/${name}`);
    } catch {
      return [];
    }
  });
}

/** bubblewrap's form of the policy: the root read-only, writable trees bound back, denied paths hidden. */
function bubblewrapArgs(bwrap: string, policy: SandboxPolicy): string[] {
  const args = [bwrap, "--die-with-parent", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"];
  // Mounts apply in order: a home inside a writable tree (/tmp) is made read-only again, then the
  // writable trees inside it (the project, tool caches) are bound back.
  const inHome = (path: string) => path === policy.home || path.startsWith(`${policy.home}/`);
  for (const path of policy.writable.filter((path) => !inHome(path))) args.push("--bind-try", path, path);
  args.push("--ro-bind-try", policy.home, policy.home);
  for (const path of policy.writable.filter(inHome)) args.push("--bind-try", path, path);
  // Hidden: a dir under an empty tmpfs, a file under /dev/null; what does not exist needs nothing.
  for (const path of expandDenied(policy.denyRead)) {
    let dir: boolean;
    try {
      dir = statSync(path).isDirectory();
    } catch {
      continue;
    }
    args.push(...(dir ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path]));
  }
  if (policy.network !== "allow") args.push("--unshare-net");
  return [...args, "--"];
}

/**
 * The one place a model's command becomes something to spawn: `argv` confined by `policy` (the
 * shell engineer's jobs and PTYs and the session host call this too), with an environment that
 * holds none of omp's secrets.
 */
export function sandboxCommand(argv: string[], options: SandboxOptions): SandboxedCommand {
  const { env, dropped } = commandEnv(options.env, options.secrets, options.policy?.envAllow ?? []);
  const policy = options.policy;
  if (!policy || policy.mode === "off") return { argv, env, confinement: "none", droppedEnv: dropped };
  const support = options.support ?? sandboxSupport();
  switch (support.kind) {
    case "landlock": {
      if (!Array.isArray(policy.network)) return { argv: [support.launcher, ...launcherRules(policy), "--", ...argv], env, confinement: "landlock", droppedEnv: dropped };
      // A host list: the only TCP port the command may reach is the filtering proxy's.
      const port = filteringProxyPort(policy.network);
      const proxy = `http://127.0.0.1:${port}`;
      const proxyEnv = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, ALL_PROXY: proxy, all_proxy: proxy, NO_PROXY: "", no_proxy: "" };
      return { argv: [support.launcher, ...launcherRules(policy, port), "--", ...argv], env: { ...env, ...proxyEnv }, confinement: "landlock", droppedEnv: dropped };
    }
    case "bubblewrap":
      return { argv: [...bubblewrapArgs(support.bwrap, policy), ...argv], env, confinement: "bubblewrap", droppedEnv: dropped };
    case "none":
      return { argv, env, confinement: "none", droppedEnv: dropped };
  }
}
