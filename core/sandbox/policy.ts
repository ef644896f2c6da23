import { projectRoot } from "../fs/project-root.ts";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { agentDir, configRoot, expandHome } from "../paths.ts";
import { dirNames } from "../fs/dir-names.ts";

/** `workspace-write`: writes in the project, its allowed dirs, temp dirs and tool caches; `read-only`: none; `off`: no sandbox. */
export const SANDBOX_MODES = ["read-only", "workspace-write", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * `off`: no network; `loopback`: a network of the command's own with only a loopback (its test
 * servers work, nothing outside, not even the machine's loopback, is reachable); `allow`: all of
 * it; a list: only these hosts (through omp's filtering proxy).
 */
export type SandboxNetwork = "off" | "loopback" | "allow" | string[];

/** What a model's command may touch: absolute paths, ready for the launcher. */
export interface SandboxPolicy {
  mode: SandboxMode;
  /** Trees the command may write (and read). */
  writable: string[];
  /** Paths no command may read, even inside a writable tree; a trailing `*` is a name prefix. */
  denyRead: string[];
  network: SandboxNetwork;
  /** Variable names kept in the command's environment though they look like secrets. */
  envAllow: string[];
  /** The home dir: not writable as a whole even inside a writable tree (bubblewrap needs it said). */
  home: string;
  /** Paths read-only even inside a writable tree (PROTECTED_WORKSPACE_PATHS of the project); a trailing `*` is a name prefix. */
  protected: string[];
  /** The git dirs, kept in place (not renamed, removed or replaced) though writable inside. */
  pinned: string[];
  /**
   * Where a command may connect to Unix sockets that exist when it starts: the project (its own test
   * servers), --add-dir and sandbox.writable dirs, and sandbox.allowSockets. Every other one is
   * hidden, in temp dirs too: the ssh-agent's and tmux's sockets live in /tmp, and a tmux socket
   * types into the user's shell outside the sandbox.
   */
  allowSockets: string[];
}

/** The `sandbox` block of the settings (core/config/settings-schema.ts). */
export interface SandboxSettings {
  mode: SandboxMode;
  network: SandboxNetwork;
  writable: string[];
  denyRead: string[];
  envAllow: string[];
  allowSockets: string[];
}

/**
 * Files in a workspace that make something run later, outside the sandbox (git's config and hooks,
 * agent and editor settings, direnv, dotenv files), relative to the project root; a trailing `/`
 * marks a dir, a trailing `*` a name prefix. Read-only to sandboxed commands (the launcher's
 * read-only binds) and to omp's own write tools (guard-tools' path policy), unless the user approves.
 * The git entries are resolved against the repository's git dirs (a worktree's live elsewhere).
 */
export const PROTECTED_WORKSPACE_PATHS = [
  ".git/config",
  ".git/config.worktree",
  ".git/hooks/",
  ".git/info/attributes",
  // A linked worktree's pointers: rewritten, they send git to a config of the command's own.
  ".git/commondir",
  ".gitmodules",
  ".omp/",
  ".claude/",
  ".mcp.json",
  ".lsp.json",
  ".vscode/",
  ".idea/",
  ".envrc",
  ".env*",
] as const;

/** The absolute paths (patterns kept) PROTECTED_WORKSPACE_PATHS names for the project at `root`. */
export function protectedPaths(root: string): string[] {
  const gitDirs = linkedGitDirs(root);
  // In a linked worktree `.git` is a file naming the git dir: protected with the rest.
  // A linked worktree: config and hooks are the common dir's, attributes and config.worktree its own.
  const [own = join(root, ".git"), common = own] = gitDirs;
  return PROTECTED_WORKSPACE_PATHS.map((entry) => {
    const path = entry.replace(/\/$/, "");
    if (!path.startsWith(".git/")) return join(root, path);
    const rest = path.slice(".git/".length);
    return join(rest === "config" || rest === "hooks" ? common : own, rest);
  })
    .concat(gitDirs.length > 0 ? [join(root, ".git")] : [])
    .concat(submoduleGitDirs(join(common, "modules")).flatMap((dir) => [join(dir, "config"), join(dir, "hooks")]));
}

/**
 * The git dirs of the repository's submodules (`.git/modules/<name>`, names may hold slashes, and
 * submodules nest): their config and hooks run code as the project's own do, when git works in
 * the submodule. A dir with a HEAD is a git dir; at most four levels and 200 dirs are looked at.
 */
function submoduleGitDirs(modules: string): string[] {
  const found: string[] = [];
  let looked = 0;
  const walk = (dir: string, depth: number) => {
    for (const name of dirNames(dir)) {
      if (++looked > 200 || depth > 4) return;
      const path = join(dir, name);
      if (existsSync(join(path, "HEAD"))) {
        found.push(path);
        walk(join(path, "modules"), depth + 1);
      } else walk(path, depth + 1);
    }
  };
  walk(modules, 0);
  return found;
}

/** The git dirs a command must not move aside and replace: bound onto themselves (the launcher's -K). */
export function gitDirsToPin(root: string): string[] {
  const linked = linkedGitDirs(root);
  return linked.length > 0 ? linked : [join(root, ".git")];
}

/** Where package managers and compilers keep their caches, under the home dir: writable so installs and builds work. */
export const TOOL_CACHES = [".cache", ".npm", ".cargo/registry", ".cargo/git", ".bun/install/cache", ".yarn", ".pnpm-store", ".local/share/pnpm", "go/pkg/mod", ".m2/repository", ".gradle/caches"];

/** Credential stores under the home dir: never readable by a model's command. */
export const CREDENTIAL_STORES = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".config/gcloud",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".config/gh",
  ".password-store",
  ".local/share/keyrings",
  // Browser profiles: saved passwords and session cookies.
  ".mozilla",
  ".config/google-chrome",
  ".config/chromium",
  ".config/BraveSoftware",
  ".config/microsoft-edge",
  "snap/firefox",
];

/** Devices every command needs to write (discarding output, terminals). */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/random", "/dev/urandom"];

/**
 * A worktree's or submodule's git dirs, which live outside it (`.git` is a file saying where):
 * `git commit` there writes to them, so they are part of the project for writing.
 */
export function linkedGitDirs(root: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(root, ".git"), "utf8");
  } catch {
    return [];
  }
  const gitdir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!gitdir) return [];
  const dir = resolve(root, gitdir);
  let common: string | undefined;
  try {
    common = resolve(dir, readFileSync(join(dir, "commondir"), "utf8").trim());
  } catch {
    common = undefined;
  }
  return common ? [dir, common] : [dir];
}

export interface PolicyInput {
  settings: SandboxSettings;
  cwd: string;
  /** `--add-dir` dirs, absolute. */
  addDirs: string[];
  home: string;
  env: NodeJS.ProcessEnv;
}

/** omp's own secrets on disk: the vault (and its WAL/SHM files), `.env` files and token files. */
function ompSecretFiles(home: string, env: NodeJS.ProcessEnv): string[] {
  const root = configRoot(home);
  const agent = env.OMP_AGENT_DIR ? agentDir(env) : join(root, "agent");
  return [join(agent, "agent.db*"), join(agent, ".env"), join(agent, "*.token"), join(root, ".env"), join(root, "*.token")];
}

/** A path of the `sandbox` settings as the policy holds it: `~` expanded, relative to the working directory. */
export function settingPath(path: string, cwd: string, home: string): string {
  return resolve(cwd, expandHome(path, home));
}

/** Turns the settings into the paths the launcher enforces; pure but for finding the repository root. */
export function buildPolicy(input: PolicyInput): SandboxPolicy {
  const { settings, home, env } = input;
  const absolute = (path: string) => settingPath(path, input.cwd, home);
  const temp = [...new Set(["/tmp", "/var/tmp", "/dev/shm", ...(env.TMPDIR ? [resolve(env.TMPDIR)] : [])])];
  // Found once: each lookup walks up the directory tree.
  const project = projectRoot(input.cwd);
  const gitDirs = linkedGitDirs(project);
  const writable =
    settings.mode === "read-only"
      ? DEVICES
      : [project, ...gitDirs, ...input.addDirs, ...temp, ...TOOL_CACHES.map((dir) => join(home, dir)), ...settings.writable.map(absolute), ...DEVICES];
  return {
    mode: settings.mode,
    writable: [...new Set(writable)],
    denyRead: [...new Set([...CREDENTIAL_STORES.map((path) => join(home, path)), ...ompSecretFiles(home, env), ...settings.denyRead.map(absolute)])],
    network: settings.network,
    envAllow: settings.envAllow,
    home,
    protected: settings.mode === "read-only" ? [] : protectedPaths(project),
    pinned: settings.mode === "read-only" ? [] : gitDirsToPin(project),
    allowSockets: [...new Set([project, ...gitDirs, ...input.addDirs, ...settings.writable.map(absolute), ...settings.allowSockets.map(absolute)])],
  };
}

/** Paths with a trailing `*`, as the files that match now (bind mounts and bubblewrap have no patterns). */
export function expandPatterns(paths: readonly string[]): string[] {
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

/**
 * The protected paths to bind read-only now: those that exist (binding one that does not would
 * mean creating it in the user's project first, so a command can still create it), and for a
 * missing .git/info/attributes its dir (git writes there only for sparse checkouts).
 */
export function existingProtected(policy: SandboxPolicy): string[] {
  const found = expandPatterns(policy.protected).flatMap((path) => {
    if (existsSync(path)) return [path];
    return path.endsWith("/info/attributes") && existsSync(dirname(path)) ? [dirname(path)] : [];
  });
  // A planted symlink (.claude -> /) must not make more than its target read-only, and a target
  // outside the writable trees is not writable anyway: bound is what it resolves to, if writable.
  const writable = (path: string) => policy.writable.some((root) => path === root || path.startsWith(`${root}/`));
  return [...new Set(found.map((path) => realpathSync(path)).filter(writable))];
}

/** How the command reaches the network beyond what the policy says: the session's loopback, the proxy's port. */
export interface LauncherNetwork {
  /** The session's loopback network (session-network.ts); without it `loopback` is a private one per command. */
  session?: { pid: number; inode: number };
  proxyPort?: number;
}

/**
 * The launcher's rules for `policy` (native/crates/sandbox/src/main.rs documents them). `namespaces`
 * false: the machine cannot make them, so protected paths and sockets go unenforced (said at start).
 */
export function launcherRules(policy: SandboxPolicy, network: LauncherNetwork = {}, namespaces = true): string[] {
  const rules = ["-r", "/"];
  for (const path of policy.writable) rules.push("-w", path);
  for (const path of policy.denyRead) rules.push("-d", path);
  if (!namespaces) rules.push("-x");
  else {
    for (const path of policy.pinned) rules.push("-K", path);
    for (const path of existingProtected(policy)) rules.push("-P", path);
    for (const path of policy.allowSockets) rules.push("-s", path);
  }
  if (policy.network === "allow") rules.push("-n");
  else if (policy.network === "loopback") rules.push(...(network.session ? ["-L", `${network.session.pid}:${network.session.inode}`] : ["-l"]));
  else if (network.proxyPort !== undefined) rules.push("-p", String(network.proxyPort));
  return rules;
}
