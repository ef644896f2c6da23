import { lstatSync, readFileSync, realpathSync } from "node:fs";

/** Whether `path` is `root` or below it. */
const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);

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
 * own in isolate.rs): every bound one /proc/net/unix lists, the ssh-agent and session bus the
 * environment names and docker's, less those below `allowed` (SandboxPolicy.allowSockets).
 */
export function hiddenSockets(env: Record<string, string | undefined>, allowed: readonly string[]): string[] {
  const named = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"];
  if (env.SSH_AUTH_SOCK) named.push(env.SSH_AUTH_SOCK);
  for (const address of env.DBUS_SESSION_BUS_ADDRESS?.split(";") ?? []) if (address.startsWith("unix:path=")) named.push(address.slice(10).split(",")[0]!);
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
