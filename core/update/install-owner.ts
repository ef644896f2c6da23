import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, sep } from "node:path";

/**
 * Who owns an installed omp. A copy that a package manager put in place must be updated by that
 * package manager: replacing it behind its back leaves the manager's records wrong and the next
 * `brew upgrade` (or nix rebuild) fighting the binary. `omp update` refuses and names the command.
 */
export interface InstallOwner {
  manager: string;
  /** What the user should run instead. */
  command: string;
}

function under(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Dirs that only the system's package manager fills; install.sh never writes there. */
const SYSTEM_DIRS = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/lib", "/usr/libexec"];

/** Where distribution packages put binaries; install.sh's default is ~/.local/bin. */
const PACKAGE_ROOTS = ["/usr", "/bin", "/sbin", "/opt"];

/** Each distribution's "which package owns this file" query: exit status 0 when one does. */
const PACKAGE_QUERIES: { manager: string; argv: string[]; command: string }[] = [
  { manager: "dpkg (apt)", argv: ["dpkg-query", "-S"], command: "sudo apt install --only-upgrade omp" },
  { manager: "rpm (dnf)", argv: ["rpm", "-qf"], command: "sudo dnf upgrade omp" },
  { manager: "pacman", argv: ["pacman", "-Qo"], command: "sudo pacman -Syu omp" },
];

/**
 * The package manager whose database lists `path`, asked directly: a root-owned or root-run omp
 * in /usr/bin is writable, so only the database tells a packaged copy from one copied there.
 * A manager that is not installed, or that does not answer within a second, does not count.
 */
function packageOwner(path: string, env: NodeJS.ProcessEnv): InstallOwner | null {
  if (!PACKAGE_ROOTS.some((root) => under(path, root))) return null;
  for (const query of PACKAGE_QUERIES) {
    try {
      const result = Bun.spawnSync([...query.argv, path], { env, stdin: "ignore", stdout: "ignore", stderr: "ignore", timeout: 1000 });
      if (result.exitCode === 0) return { manager: query.manager, command: query.command };
    } catch {
      // Not installed here.
    }
  }
  return null;
}

/**
 * `paths` are the binary as invoked and as resolved (symlinks followed): Homebrew's `bin/omp` is a
 * link into its Cellar, and either form may be what tells the owner.
 */
export function detectInstallOwner(paths: string[], env: NodeJS.ProcessEnv = process.env): InstallOwner | null {
  for (const path of paths) {
    const parts = path.split(sep);
    if (parts.includes("Cellar") || parts.includes(".linuxbrew") || (env.HOMEBREW_PREFIX && under(path, env.HOMEBREW_PREFIX))) {
      return { manager: "Homebrew", command: "brew upgrade omp" };
    }
    if (under(path, "/nix/store")) {
      return { manager: "Nix", command: "update it through Nix: nix profile upgrade omp, or your NixOS/home-manager configuration" };
    }
    const bunInstall = env.BUN_INSTALL || join(homedir(), ".bun");
    if (under(path, join(bunInstall, "install", "global"))) return { manager: "bun", command: "bun add -g omp@latest" };
    if (parts.includes("node_modules")) return { manager: "npm", command: "npm install -g omp@latest" };
    if (parts.includes("mise") && parts.includes("installs")) return { manager: "mise", command: "mise upgrade omp" };
  }
  for (const path of new Set(paths)) {
    const owner = packageOwner(path, env);
    if (owner) return owner;
  }
  const resolved = paths.at(-1)!;
  const dir = dirname(resolved);
  if (SYSTEM_DIRS.some((system) => under(dir, system)) && !writable(dir)) {
    return {
      manager: "the system package manager",
      command: `update it with the package manager that installed ${resolved} (apt, dnf, pacman, ...), or install a per-user copy with install.sh`,
    };
  }
  return null;
}
