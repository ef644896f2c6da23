import { dirname, join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { realFolder } from "../fs/real-folder.ts";
import { lockPathBeside, withFileLockSync } from "../fs/file-lock.ts";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import { hostAllowed } from "../web/address.ts";

/**
 * Egress is an effect: web_fetch, web_search, read of a URL and calls to remote MCP servers from
 * project configuration send data to a host, and a prompt-injected model could put secrets in
 * what it sends. A host the user named goes through; any other asks once (interactive, rpc, ACP)
 * or is refused (print, json). Named means: in the user's own prompt text, in `web.allowHosts`,
 * in `--allow-host`, or allowed "always" before in this project (kept in
 * `<agent dir>/egress-hosts.json`, keyed by the project's real path).
 */


/** A request that would send something to `host`, as the approval shows it. */
export interface EgressRequest {
  toolName: string;
  /** Bare host name or address (no brackets), and the port it is reached on. */
  host: string;
  port: string;
  /** What goes there, in words ("a GET request for https://…", "the search query \"…\""). */
  what: string;
  /**
   * The user's own configuration names the host (the github tool's API host: api.github.com with a
   * GitHub token set up, or GITHUB_API_URL), as a user-config MCP server's counts as named; a
   * private address still needs allowHosts or an approval.
   */
  configured?: string;
  /** Set when the host resolves to a loopback/private/link-local address: prompt naming does not cover it. */
  privateAddress?: { address: string; kind: string };
}

export const egressStorePath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "egress-hosts.json");

/** File names look like host names ("README.md"); a bare name with these endings is not taken as one. */
const FILE_ENDINGS = new Set(
  "md ts tsx js jsx mjs cjs py rs go sh json jsonl yml yaml txt toml lock html htm css c h cc cpp hpp java kt rb php sql xml zip gz tgz tar log csv pdf png jpg jpeg gif svg ini cfg conf env mdx vue swift lua pl ex exs zig d mk bak tmp".split(" "),
);
/** Wrapping around a name in prose (quotes, brackets, a sentence's full stop), trimmed off a word. */
const WRAPPING = /^[^a-z0-9[]+|[^a-z0-9\]/]+$/gi;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** Longer words are not addresses anyone types; skipping them keeps this linear in the prompt. */
const MAX_WORD = 2048;

const bareHost = (host: string) => host.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();

/** The host a word names, if it names one: a URL's host, a bare domain (not a file name), an IPv4 address. */
function hostOf(word: string): string | undefined {
  if (word.includes("://")) {
    try {
      const host = new URL(word).hostname;
      return host ? bareHost(host) : undefined;
    } catch {
      return undefined;
    }
  }
  if (word.includes("@")) return undefined;
  const host = word.split(/[/:?#]/, 1)[0]!.replace(/\.$/, "");
  if (IPV4.test(host)) return host;
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  const tld = labels.at(-1)!.toLowerCase();
  return /^[a-z]{2,63}$/.test(tld) && !FILE_ENDINGS.has(tld) ? host.toLowerCase() : undefined;
}

/** The hosts a text names: URL hosts, bare domain names (not file names), IPv4 addresses; word by word, so linear. */
export function hostsIn(text: string): string[] {
  const hosts = new Set<string>();
  for (const raw of text.split(/[\s<>()"'`,;|*]+/)) {
    if (raw.length === 0 || raw.length > MAX_WORD) continue;
    const host = hostOf(raw.replace(WRAPPING, ""));
    if (host) hosts.add(host);
  }
  return [...hosts];
}

/** `host` is `named` or one of its subdomains (docs.example.com under example.com). */
const covers = (named: string, host: string) => host === named || host.endsWith(`.${named}`);


/** The store's file and schema load with the first question about a host: zod stays off the start-up path. */
const egressStore = () => require("./egress-store.ts") as typeof import("./egress-store.ts");

/** The hosts one session may reach without asking, and the per-project memory of "always" answers. */
export class EgressHosts {
  private readonly prompted = new Set<string>();
  private readonly project: string;

  constructor(
    cwd: string,
    /** `web.allowHosts` and `--allow-host`, read at each call so /settings changes hold. */
    private readonly allowHosts: () => readonly string[],
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.project = realFolder(cwd);
  }

  /** The user's own prompt text (never a subagent's or a tool's): the hosts it names are named. */
  nameIn(text: string): void {
    for (const host of hostsIn(text)) this.prompted.add(host);
  }

  /** Why `request` may go without asking, or undefined. A private address needs allowHosts or a remembered answer. */
  namedBy(request: Pick<EgressRequest, "host" | "port" | "privateAddress">): "allow-host" | "prompt" | "remembered" | undefined {
    const host = bareHost(request.host);
    if (hostAllowed(this.allowHosts(), host, request.port)) return "allow-host";
    // The prompt's hosts first: they are in memory, the remembered ones a file and its schema away.
    if (!request.privateAddress && [...this.prompted].some((named) => covers(named, host))) return "prompt";
    if (this.rememberedHosts().includes(host)) return "remembered";
    return undefined;
  }

  /** Hosts remembered for this folder or one above it (a session started in a subfolder of the project). */
  private rememberedHosts(): string[] {
    const { projects } = egressStore().readEgressStore(this.env);
    const hosts: string[] = [];
    for (let dir = this.project; ; dir = dirname(dir)) {
      hosts.push(...(projects[dir] ?? []));
      if (dirname(dir) === dir) return hosts;
    }
  }

  /** "Always for this host": kept for this project in egress-hosts.json. */
  remember(host: string): void {
    const path = egressStorePath(this.env);
    ensurePrivateDir(dirname(path));
    withFileLockSync(lockPathBeside(path), { waitMs: 10_000, what: "another omp egress-hosts change" }, () => {
      const store = egressStore().readEgressStore(this.env);
      const hosts = new Set(store.projects[this.project] ?? []);
      hosts.add(bareHost(host));
      store.projects[this.project] = [...hosts].sort();
      writeFileAtomic(path, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
    });
  }
}

/** What a refused request tells the model: why, and how the user opens the door on purpose. */
export function egressRefusal(request: EgressRequest, why: string): string {
  const { host } = request;
  const where = request.privateAddress ? ` (a ${request.privateAddress.kind} address, ${request.privateAddress.address})` : "";
  const ways = request.privateAddress
    ? `rerun with --allow-host ${host}, or add it to web.allowHosts in config.yml (naming a private address in the prompt is not enough, so a page cannot make you probe the user's network)`
    : `name the host in the prompt, rerun with --allow-host ${host}, or add it to web.allowHosts in config.yml`;
  return `${request.toolName} was not run: it would send ${request.what} to ${host}${where}, a host the user has not named. ${why} To allow it, the user can ${ways}.`;
}

export type EgressOutcome = { allow: true } | { allow: false; message: string };

/** The session's answer for `request`; with no session to ask (`ask` absent) the request is refused. */
export function checkEgress(ask: ((request: EgressRequest) => Promise<EgressOutcome>) | undefined, request: EgressRequest): Promise<EgressOutcome> {
  return ask ? ask(request) : Promise.resolve({ allow: false, message: egressRefusal(request, "There is nobody to ask.") });
}
