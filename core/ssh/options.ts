/** `OMP_SSH_OPTIONS`: ssh arguments the user adds to every ssh omp runs (split on spaces, no shell: `-F ~/.ssh/work.conf`). */
export function userSshOptions(env: Record<string, string | undefined>): string[] {
  return (env.OMP_SSH_OPTIONS ?? "").split(/\s+/).filter((word) => word !== "");
}

/** `user@address:port` of a host as ssh.json gives it (~/.ssh/config may add what it leaves out). */
export function hostTarget(host: { host: string; username?: string; port?: number }): string {
  return `${host.username ? `${host.username}@` : ""}${host.host}${host.port !== undefined ? `:${host.port}` : ""}`;
}
