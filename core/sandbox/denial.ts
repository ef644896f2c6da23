import { displayPath } from "../paths.ts";
import { PROTECTED_WORKSPACE_PATHS, type SandboxPolicy } from "./policy.ts";

/** What the sandbox refused, told apart by how common tools and runtimes word it. */
export type RefusalKind = "file" | "network" | "socket" | "dns" | "bind";

/** A failed command's output read as a sandbox refusal: its kind, the line that says so, what it was (a host or path) when the line names it. */
export interface Refusal {
  kind: RefusalKind;
  line: string;
  target?: string;
}

/** Checked in this order: a refused socket or name lookup also reads as a refused connection. */
const PATTERNS: [RefusalKind, RegExp][] = [
  ["dns", /could not resolve host|temporary failure in name resolution|name or service not known|\bEAI_AGAIN\b|\bENOTFOUND\b|getaddrinfo/i],
  ["socket", /(?:unix:|\.sock\b|agent|docker daemon|d-?bus).*(?:connection refused|couldn't connect|cannot connect|error connecting)|(?:connection refused|error connecting|cannot connect).*(?:unix:|\.sock\b|agent)/i],
  ["network", /couldn't connect|failed to connect|could not connect|connection refused|network is unreachable|address family not supported|\bENETUNREACH\b|\bECONNREFUSED\b/i],
  ["file", /permission denied|operation not permitted|read-only file system|device or resource busy|\bEACCES\b|\bEPERM\b|\bEROFS\b/i],
];

/** The host or path a refusal line names: `to HOST port`, `//host:port`, a quoted or absolute path. */
function targetOf(kind: RefusalKind, line: string): string | undefined {
  if (kind === "network" || kind === "dns") {
    return /(?:connect to|resolve host:?|\/\/)\s*\[?([A-Za-z0-9.:-]+?)\]?(?:\s+port\b|:\d|\/|\s|$)/i.exec(line)?.[1];
  }
  // A quoted path, an absolute or home one, or a relative one with a slash (git's `.git/config`).
  return /['"`]([^'"`\s]*\/[^'"`]*)['"`]|((?:~|\.{1,2})?\/[^\s:'"`]+|[\w.-]+\/[^\s:'"`]+)/.exec(line)?.slice(1).find(Boolean);
}

/** Whether a failed command's output looks like the sandbox refused something, and what. */
export function classifyRefusal(output: string): Refusal | undefined {
  const lines = output.split("\n").map((line) => line.trim().slice(0, 200));
  for (const [kind, pattern] of PATTERNS) {
    const matching = lines.filter((line) => pattern.test(line));
    if (matching.length === 0) continue;
    if (kind === "file") {
      // EPERM/EACCES from a socket call (seccomp's no network, Landlock's TCP rules) is not a file's:
      // said on the line (node's "listen EACCES") or just above it (a Python traceback).
      const at = lines.indexOf(matching[0]!);
      const context = lines.slice(Math.max(0, at - 4), at + 1).join("\n");
      if (/\b(?:bind|listen)\b|server_bind/i.test(context)) return { kind: "bind", line: matching[0]! };
      if (/\bsocket\b|\bconnect\b/i.test(context)) return { kind: "network", line: matching[0]! };
    }
    // The line naming the host or path says more than the first (npm's "code EAI_AGAIN").
    const named = matching.find((line) => targetOf(kind, line) !== undefined);
    const line = named ?? matching[0]!;
    const target = named ? targetOf(kind, named) : undefined;
    return { kind, line, ...(target ? { target } : {}) };
  }
  return undefined;
}

/** Whether a failed command's output looks like the sandbox refused something. */
export function looksRefused(output: string): boolean {
  return classifyRefusal(output) !== undefined;
}

/** What the sandbox allowed, in words for the model and the user. */
export function describePolicy(policy: SandboxPolicy): string {
  const writes = policy.mode === "read-only" ? "no writes at all" : `writes only in ${displayPath(policy.writable[0] ?? "the project")}, --add-dir dirs, temp dirs and tool caches`;
  const network =
    policy.network === "allow" ? "network open" : policy.network === "loopback" ? "a private loopback only" : Array.isArray(policy.network) ? `network only to ${policy.network.join(", ")}` : "no network";
  return `${policy.mode}: ${writes}; credential stores (~/.ssh, ~/.aws, omp's vault…) unreadable; ${network}`;
}

/** Why the sandbox refused it and which setting opens that door, in one line. */
export function explainRefusal(refusal: Refusal, policy: SandboxPolicy): string {
  const what = refusal.target ? ` (${refusal.target})` : "";
  switch (refusal.kind) {
    case "socket":
      return `Unix sockets outside the project are hidden${what}: the ssh-agent, docker, D-Bus; sandbox.allowSockets in ~/.omp/agent/config.yml names the ones commands may use.`;
    case "dns":
    case "network":
      if (policy.network === "loopback") {
        return `the network${what} is unreachable: commands share the session's private loopback (a server one command starts answers the next), and nothing outside it, not the machine's own localhost servers either; sandbox.network: allow or a host list opens it.`;
      }
      return `the network${what} is ${policy.network === "allow" ? "open, so this is not the sandbox" : Array.isArray(policy.network) ? `limited to ${policy.network.join(", ")} through omp's proxy` : "off"}; sandbox.network (loopback, allow or a host list) opens it.`;
    case "bind":
      return policy.network === "off" || Array.isArray(policy.network)
        ? "servers cannot listen: the sandbox has no network of its own; sandbox.network: loopback lets commands' servers listen on the session's private loopback, where later commands reach them."
        : "the sandbox refused a listening socket; sandbox.network: allow opens the network.";
    case "file":
      if (refusal.target && PROTECTED_WORKSPACE_PATHS.some((entry) => refusal.target!.includes(entry.replace(/[*/]$/, "")))) {
        return `${refusal.target} is a protected workspace path (it makes something run later, outside the sandbox: git config and hooks, agent and editor settings, .env files): read-only to commands; the user can approve running this outside the sandbox.`;
      }
      return `files${what}: ${policy.mode === "read-only" ? "no writes at all" : "writes only in the project (not its protected paths: .git/config, .git/hooks, .claude/, .vscode/, .env…), --add-dir dirs, temp dirs and tool caches"}, and no reads of credential stores; --add-dir or sandbox.writable allows a dir.`;
  }
}

/** The note a refused command's result ends with when nobody can let it run outside the sandbox. */
export function refusedNote(policy: SandboxPolicy, refusal: Refusal, why?: string): string {
  return (
    `[omp sandbox] This command ran sandboxed (${describePolicy(policy)}), and the failure above looks like the sandbox refusing it: ${explainRefusal(refusal, policy)} ` +
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
