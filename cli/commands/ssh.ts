import { OmpError } from "../../core/errors/omp-error.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { displayPath } from "../../core/paths.ts";
import { type SshHostConfig, type SshScope, addSshHost, readSshHosts, removeSshHost, sshConfigPath } from "../../core/ssh/hosts.ts";
import { writeStdout } from "../shared/write.ts";

export interface SshAddFlags {
  host: string;
  user?: string;
  port?: string;
  key?: string;
  desc?: string;
  compat?: boolean;
  scope?: string;
}

function scopeOf(scope: string | undefined): SshScope {
  if (scope === undefined || scope === "project" || scope === "user") return scope ?? "project";
  throw new OmpError(`--scope takes project or user, not "${scope}"`, { exitCode: EXIT_USAGE });
}

/** `omp ssh add <name> --host <address>`: the original's fields, checked before anything is written. */
export async function sshAdd(name: string, flags: SshAddFlags): Promise<number> {
  const scope = scopeOf(flags.scope);
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = /^\d+$/.test(flags.port) ? Number(flags.port) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) throw new OmpError(`--port must be an integer between 1 and 65535, not "${flags.port}"`, { exitCode: EXIT_USAGE });
  }
  const config: SshHostConfig = {
    host: flags.host.trim(),
    ...(flags.user ? { username: flags.user } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(flags.key ? { keyPath: flags.key } : {}),
    ...(flags.desc ? { description: flags.desc } : {}),
    ...(flags.compat ? { compat: true } : {}),
  };
  if (!config.host) throw new OmpError("--host cannot be empty: give an address or a ~/.ssh/config alias", { exitCode: EXIT_USAGE });
  const path = sshConfigPath(scope, process.cwd());
  addSshHost(path, name, config);
  await writeStdout(`Added SSH host "${name}" to ${scope} config (${displayPath(path)})\n`);
  return 0;
}

export async function sshRemove(name: string, flags: { scope?: string }): Promise<number> {
  const scope = scopeOf(flags.scope);
  const path = sshConfigPath(scope, process.cwd());
  removeSshHost(path, name);
  await writeStdout(`Removed SSH host "${name}" from ${scope} config (${displayPath(path)})\n`);
  return 0;
}

/** Both files' hosts as written: `--json` prints `{ project, user }` as the original does. */
export async function sshList(flags: { json?: boolean }): Promise<number> {
  const project = readSshHosts(sshConfigPath("project", process.cwd()));
  const user = readSshHosts(sshConfigPath("user", process.cwd()));
  if (flags.json) {
    await writeStdout(`${JSON.stringify({ project, user }, null, 2)}\n`);
    return 0;
  }
  const sections = [
    ["Project SSH Hosts (.omp/ssh.json):", project],
    ["User SSH Hosts (~/.omp/agent/ssh.json):", user],
  ] as const;
  const shown = sections.filter(([, hosts]) => Object.keys(hosts).length > 0);
  if (shown.length === 0) {
    await writeStdout("No SSH hosts configured\nAdd one with: omp ssh add <name> --host <address>\n");
    return 0;
  }
  await writeStdout(`${shown.map(([title, hosts]) => [title, ...Object.entries(hosts).map(([name, value]) => `  ${hostRow(name, value)}`)].join("\n")).join("\n\n")}\n`);
  return 0;
}

function hostRow(name: string, value: unknown): string {
  const entry = (value !== null && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const text = (field: unknown) => (typeof field === "string" || typeof field === "number" ? String(field).replace(/[\x00-\x1f\x7f]/g, " ") : undefined);
  const parts = [name, text(entry.host) ?? "(no host)"];
  const user = text(entry.username ?? entry.user);
  const port = text(entry.port);
  const key = text(entry.keyPath ?? entry.key);
  if (user) parts.push(user);
  if (port && port !== "22") parts.push(`port:${port}`);
  if (key) parts.push(key);
  if (entry.description) parts.push(`- ${text(entry.description)}`);
  return parts.join("  ");
}
