import { lstatSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isWithin as within } from "../fs/within.ts";


function realSocket(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return lstatSync(real).isSocket() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pathname Unix sockets a command must not reach (bubblewrap's form; the launcher finds its
 * own in isolate.rs, the same places): every bound one /proc/net/unix lists, the ssh-agent and
 * session bus the environment names, docker's and podman's, and those in the runtime dir and its
 * sub-folders (rootless docker binds its socket in another network namespace, which
 * /proc/net/unix does not show), less those below `allowed` (SandboxPolicy.allowSockets).
 */
export function hiddenSockets(env: Record<string, string | undefined>, allowed: readonly string[]): string[] {
  const named = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"];
  if (env.SSH_AUTH_SOCK) named.push(env.SSH_AUTH_SOCK);
  for (const address of env.DBUS_SESSION_BUS_ADDRESS?.split(";") ?? []) if (address.startsWith("unix:path=")) named.push(address.slice(10).split(",")[0]!);
  named.push(...runtimeSockets(env));
  try {
    // Num RefCount Protocol Flags Type St Inode Path
    for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
      const path = line.split(" ").slice(7).join(" ");
      if (path.startsWith("/")) named.push(path);
    }
  } catch {
    // No /proc/net/unix: the named ones still count.
  }
  return [...new Set(named.map(realSocket).filter((path): path is string => path !== undefined && !allowed.some((root) => within(path, root))))];
}

/** Sockets in `$XDG_RUNTIME_DIR` (else /run/user/<uid>) and one level of folders below it. */
function runtimeSockets(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  let dirs = [env.XDG_RUNTIME_DIR || `/run/user/${process.getuid?.() ?? 0}`];
  for (let depth = 0; depth < 2; depth++) {
    const next: string[] = [];
    for (const dir of dirs) {
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.isDirectory() && depth === 0) next.push(join(dir, entry.name));
        else if (entry.isSocket()) found.push(join(dir, entry.name));
      }
    }
    dirs = next;
  }
  return found;
}
