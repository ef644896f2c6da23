import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { agentDir, ensurePrivateDir, expandHome } from "../paths.ts";

/**
 * The ssh tool's hosts, in the original omp's files: `.omp/ssh.json` (project) and
 * `~/.omp/agent/ssh.json` (user), `{ "hosts": { "<name>": { host, username?, port?, keyPath?,
 * description?, compat? } } }`. `host` may be an alias of the user's ~/.ssh/config: the system ssh
 * client resolves it, with its User, Port and IdentityFile.
 */
export type SshScope = "project" | "user";

/** The file's schema loads only when there is a file: zod stays off the start-up path of sessions without hosts. */
const schemas = () => require("./hosts-schema.ts") as typeof import("./hosts-schema.ts");

export type SshHostConfig = { host: string; username?: string; port?: number; keyPath?: string; description?: string; compat?: boolean };

/** A host the tool may use: its name (the key in ssh.json) and where it came from. */
export interface SshHost extends SshHostConfig {
  name: string;
  source: string;
}

export function sshConfigPath(scope: SshScope, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return scope === "project" ? join(cwd, ".omp", "ssh.json") : join(agentDir(env), "ssh.json");
}

const NAME = /^[A-Za-z0-9_.-]+$/;

/** Why `name` cannot name a host, or undefined (the original's rule: letters, digits, dash, underscore, dot; at most 100). */
export function hostNameProblem(name: string): string | undefined {
  if (!name) return "a host name cannot be empty";
  if (name.length > 100) return "a host name is at most 100 characters";
  if (!NAME.test(name)) return `"${name}" is not a host name: use letters, digits, dash, underscore and dot`;
  return undefined;
}

/** Why `address` cannot be an ssh destination: ssh would read one starting with "-" as an option. */
function addressProblem(address: string): string | undefined {
  if (address.startsWith("-") || /[\s\x00-\x1f]/.test(address)) return `"${address}" is not a host address (no leading "-", no spaces or control characters)`;
  return undefined;
}

interface ParsedFile {
  raw: Record<string, unknown>;
  hosts: Record<string, unknown>;
}

function readFile(path: string): ParsedFile {
  if (!existsSync(path)) return { raw: {}, hosts: {} };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new OmpError(`${path} is not valid JSON (${(error as Error).message}); fix or remove it.`);
  }
  const parsed = schemas().hostsFile.safeParse(json);
  if (!parsed.success) throw new OmpError(`${path} must be an object with "hosts": { "<name>": { "host": "<address>" } }.`);
  return { raw: parsed.data, hosts: parsed.data.hosts ?? {} };
}

/** One entry as the tool uses it, or why it cannot be used. */
function normalize(name: string, value: unknown, env: NodeJS.ProcessEnv): SshHostConfig | string {
  const problem = hostNameProblem(name);
  if (problem) return problem;
  const parsed = schemas().hostEntry.safeParse(value);
  if (!parsed.success) return `host "${name}" needs "host" (an address or ~/.ssh/config alias); username, port (1-65535) and keyPath are optional`;
  const entry = parsed.data;
  const address = expandEnv(entry.host, env);
  const bad = addressProblem(address);
  if (bad) return `host "${name}": ${bad}`;
  const username = entry.username ?? entry.user;
  const keyPath = entry.keyPath ?? entry.key;
  return {
    host: address,
    ...(username ? { username: expandEnv(username, env) } : {}),
    ...(entry.port !== undefined ? { port: entry.port } : {}),
    ...(keyPath ? { keyPath: expandHome(expandEnv(keyPath, env)) } : {}),
    ...(entry.description ? { description: entry.description } : {}),
    ...(entry.compat !== undefined ? { compat: entry.compat } : {}),
  };
}

/** `$VAR` and `${VAR}`, as the original expands them in ssh.json. */
function expandEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced, bare) => env[braced ?? bare] ?? whole);
}

export interface LoadedHosts {
  hosts: SshHost[];
  /** Entries or files that could not be used, each saying why. */
  problems: string[];
}

/**
 * The hosts of the project (only when its folder is trusted: a cloned repository must not choose
 * where commands go) and of the user, the project's first; a name defined twice keeps the first.
 */
export function loadSshHosts(cwd: string, env: NodeJS.ProcessEnv, projectTrusted: boolean): LoadedHosts {
  const files = [...(projectTrusted ? [sshConfigPath("project", cwd, env), join(cwd, "ssh.json"), join(cwd, ".ssh.json")] : []), sshConfigPath("user", cwd, env)];
  const hosts: SshHost[] = [];
  const problems: string[] = [];
  for (const file of files) {
    let parsed: ParsedFile;
    try {
      parsed = readFile(file);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    for (const [name, value] of Object.entries(parsed.hosts)) {
      if (hosts.some((host) => host.name === name)) continue;
      const entry = normalize(name, value, env);
      if (typeof entry === "string") problems.push(`${file}: ${entry}`);
      else hosts.push({ name, source: file, ...entry });
    }
  }
  return { hosts, problems };
}

/** The hosts of one file as written, for `omp ssh list`. */
export function readSshHosts(path: string): Record<string, unknown> {
  return readFile(path).hosts;
}

function change(path: string, body: (file: ParsedFile) => Record<string, unknown>): void {
  ensurePrivateDir(dirname(path));
  withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp ssh change" }, () => {
    const file = readFile(path);
    const hosts = body(file);
    writeFileAtomic(path, `${JSON.stringify({ ...file.raw, hosts }, null, 2)}\n`, { mode: 0o600 });
  });
}

/** Adds `name`; refuses a bad name, address or port, and a name the file already has. Everything else in the file is kept. */
export function addSshHost(path: string, name: string, config: SshHostConfig): void {
  const problem = hostNameProblem(name) ?? addressProblem(config.host);
  if (problem) throw new OmpError(`${problem}.`, { exitCode: EXIT_USAGE });
  change(path, (file) => {
    if (name in file.hosts) throw new OmpError(`host "${name}" already exists in ${path}; remove it first (omp ssh remove ${name}).`);
    return { ...file.hosts, [name]: config };
  });
}

/** Removes `name`; an error when the file has no such host. */
export function removeSshHost(path: string, name: string): void {
  change(path, (file) => {
    if (!(name in file.hosts)) throw new OmpError(`host "${name}" not found in ${path}${Object.keys(file.hosts).length > 0 ? ` (it has: ${Object.keys(file.hosts).join(", ")})` : ""}.`);
    const { [name]: _removed, ...rest } = file.hosts;
    return rest;
  });
}
