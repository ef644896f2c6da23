import { displayPath } from "../paths.ts";
import type { SandboxPolicy } from "./policy.ts";

/** How a refused write, read or connect shows in the output of common tools and runtimes. */
const REFUSED = /permission denied|operation not permitted|read-only file system|couldn't connect|failed to connect|could not connect|network is unreachable|address family not supported|could not resolve host|temporary failure in name resolution|name or service not known|\bEACCES\b|\bEPERM\b|\bENETUNREACH\b|\bECONNREFUSED\b|\bEAI_AGAIN\b/i;

/** Whether a failed command's output looks like the sandbox refused something. */
export function looksRefused(output: string): boolean {
  return REFUSED.test(output);
}

/** What the sandbox allowed, in words for the model and the user. */
export function describePolicy(policy: SandboxPolicy): string {
  const writes = policy.mode === "read-only" ? "no writes at all" : `writes only in ${displayPath(policy.writable[0] ?? "the project")}, --add-dir dirs, temp dirs and tool caches`;
  const network =
    policy.network === "allow" ? "network open" : policy.network === "loopback" ? "a private loopback only" : Array.isArray(policy.network) ? `network only to ${policy.network.join(", ")}` : "no network";
  return `${policy.mode}: ${writes}; credential stores (~/.ssh, ~/.aws, omp's vault…) unreadable; ${network}`;
}

/** The note a refused command's result ends with when nobody can let it run outside the sandbox. */
export function refusedNote(policy: SandboxPolicy, why?: string): string {
  return (
    `[omp sandbox] This command ran sandboxed (${describePolicy(policy)}), and the failure above looks like the sandbox refusing it. ` +
    (why ? `${why} ` : "No one can approve running it outside the sandbox in this run. ") +
    "Do not try to work around the sandbox; if the task needs this, tell the user, who can rerun with --sandbox off, allow a dir with --add-dir or sandbox.writable, or open the network with sandbox.network."
  );
}

/** Programs whose second word picks what they do (`git push` is not `git status`). */
const SUBCOMMAND_TOOLS = new Set(["git", "npm", "npx", "pnpm", "yarn", "bun", "deno", "cargo", "go", "docker", "podman", "kubectl", "helm", "pip", "pip3", "uv", "poetry", "gh", "apt", "apt-get", "brew", "systemctl", "dotnet", "mvn", "gradle", "rustup", "nix", "terraform", "make"]);

/** A command's leading words (`npm test`, `git push`, `ls`): what "always" remembers, never all of bash. */
export function commandPrefix(command: string): string {
  const [first = "", second] = command.trim().split(/\s+/);
  const plainWord = (word: string | undefined): word is string => word !== undefined && /^[A-Za-z0-9_.:@+=][A-Za-z0-9_./:@+=-]*$/.test(word);
  return SUBCOMMAND_TOOLS.has(first) && plainWord(second) ? `${first} ${second}` : first;
}

/**
 * Whether a remembered "always" for `prefix` covers `command`: only a plain command that starts with
 * those words, with nothing chained, piped, substituted or redirected after it.
 */
export function prefixCovers(prefix: string, command: string): boolean {
  const plain = command.trim().replace(/\s+/g, " ");
  if (/[;&|`$()<>\n\\]/.test(plain)) return false;
  return plain === prefix || plain.startsWith(`${prefix} `);
}
