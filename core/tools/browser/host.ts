import type { Subprocess, TCPSocketListener } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../paths.ts";
import { selfCommand } from "../../self-command.ts";
import { type ProxyDecision, startFilteringProxy } from "../../sandbox/proxy.ts";
import { sandboxCommand } from "../../sandbox/wrap.ts";
import { type Container, containedArgv, createContainer } from "../../shell/containment.ts";
import { checkAddress } from "../../web/http-get.ts";
import { WebError } from "../../web/web-error.ts";
import type { ToolContext } from "../types.ts";
import { findChromium } from "./chromium.ts";
import { browserStarted } from "./lifetime.ts";
import type { DriverAnswer, DriverReady, DriverRequest } from "./protocol.ts";

const BROWSER_DRIVER_COMMAND = "__browser-driver";
/** Past a call's time limit the driver has this long to answer before it is killed with its browser. */
const GRACE_MS = 5000;
/** The driver's answers carry screenshots; more than this in one line is not one it sends. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export class BrowserFailure extends Error {}

type Call = (DriverRequest extends infer R ? (R extends DriverRequest ? Omit<R, "id" | "deadline"> : never) : never) & { timeoutMs: number };

/**
 * The session's browser: one driver (driver.ts) in the command sandbox, whose Chromium reaches the
 * network only through an egress proxy here that asks the session's egress policy per host, as
 * web_fetch does. It lives in a container (core/shell/containment.ts), so it ends with omp however
 * omp ends, and its profile is a temporary dir removed then.
 */
class BrowserHost {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: DriverAnswer) => void>();
  /** Why the proxy refused requests during the current calls: the model is told. */
  refusals: string[] = [];
  /** The latest call's context: its session's egress policy decides. */
  context: ToolContext | undefined;

  private constructor(
    private readonly proc: Subprocess<"pipe", "pipe", "ignore">,
    private readonly container: Container,
    private readonly proxy: TCPSocketListener<unknown>,
    private readonly profile: string,
    readonly version: string,
    lines: AsyncIterator<string>,
  ) {
    void this.read(lines);
  }

  static async start(context: ToolContext): Promise<BrowserHost> {
    const executable = findChromium();
    if (!executable) throw new BrowserFailure("No Chromium found: install Debian's chromium (apt install chromium) or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium executable.");
    const profile = mkdtempSync(join(tempDir(), "omp-browser-"));
    let host: BrowserHost | undefined;
    const proxy = startFilteringProxy((target) => decide(target, host?.context ?? context, (why) => host?.refusals.push(why)));
    proxy.unref();
    const container = createContainer();
    const policy = context.sandbox ? { ...context.sandbox, writable: [...context.sandbox.writable, profile] } : undefined;
    const command = sandboxCommand([...selfCommand(), BROWSER_DRIVER_COMMAND, executable, profile, String(proxy.port)], { policy, env: process.env, secrets: context.secrets ?? [], proxyPort: proxy.port });
    let proc: Subprocess<"pipe", "pipe", "ignore">;
    try {
      proc = Bun.spawn(containedArgv(container, command), { cwd: context.cwd, env: { ...command.env, ...container.env }, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    } catch (error) {
      container.destroy();
      proxy.stop(true);
      rmSync(profile, { recursive: true, force: true });
      throw new BrowserFailure(`The browser driver did not start: ${(error as Error).message}`);
    }
    const lines = readLines(proc.stdout);
    const started = Promise.withResolvers<undefined>();
    const timer = setTimeout(() => started.resolve(undefined), 60_000);
    const first = await Promise.race([lines.next(), started.promise]).finally(() => clearTimeout(timer));
    let ready: DriverReady | undefined;
    try {
      ready = first && !first.done ? (JSON.parse(first.value) as DriverReady) : undefined;
    } catch {
      ready = undefined;
    }
    if (!ready?.ready) {
      container.destroy();
      proxy.stop(true);
      rmSync(profile, { recursive: true, force: true });
      throw new BrowserFailure(`Chromium (${executable}) did not start under the sandbox: ${ready && !ready.ready ? ready.error : "no answer within 60 s"}`);
    }
    host = new BrowserHost(proc, container, proxy, profile, ready.version, lines);
    // Neither the driver nor its pipe keeps omp running: the session's end (or omp's exit) stops it.
    proc.unref();
    browserStarted(() => host?.stop());
    return host;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** One call; the driver answers within its deadline, or it is killed (a run that never yields). */
  async call(call: Call, signal: AbortSignal): Promise<DriverAnswer> {
    const id = this.nextId++;
    const { timeoutMs, ...rest } = call;
    const request = { ...rest, id, deadline: Date.now() + timeoutMs } as DriverRequest;
    const answered = new Promise<DriverAnswer>((resolve) => this.waiting.set(id, resolve));
    this.proc.stdin.write(`${JSON.stringify(request)}\n`);
    this.proc.stdin.flush();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<"hung" | "cancelled">((resolve) => {
      timer = setTimeout(() => resolve("hung"), timeoutMs + GRACE_MS);
      onAbort = () => resolve("cancelled");
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([answered, stopped]);
      if (outcome === "hung" || outcome === "cancelled") {
        this.stop();
        throw new BrowserFailure(outcome === "hung" ? "Browser code execution hung past its time limit; the browser was stopped and its tabs are gone: open them again." : "Cancelled; the browser was stopped and its tabs are gone.");
      }
      return outcome;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
      this.waiting.delete(id);
    }
  }

  stop(): void {
    this.container.destroy();
    this.proc.kill("SIGKILL");
    this.proxy.stop(true);
    rmSync(this.profile, { recursive: true, force: true });
    if (running === this) running = undefined;
  }

  private async read(lines: AsyncIterator<string>): Promise<void> {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      let answer: DriverAnswer;
      try {
        answer = JSON.parse(next.value) as DriverAnswer;
      } catch {
        continue;
      }
      this.waiting.get(answer.id)?.(answer);
    }
    // The driver ended (its browser crashed, or it was killed): calls still waiting learn it now.
    for (const [id, resolve] of this.waiting) resolve({ id, error: "The browser exited; open the tab again.", content: [] });
    this.stop();
  }
}

/**
 * Hosts Chromium calls on its own (sign-in, component and extension updates) whatever the switches
 * say: refused without asking, so the user is never asked about a request no page made.
 */
const CHROMIUM_OWN_HOSTS = new Set(["accounts.google.com", "clients2.google.com", "update.googleapis.com", "clientservices.googleapis.com", "safebrowsing.googleapis.com", "optimizationguide-pa.googleapis.com", "content-autofill.googleapis.com", "redirector.gvt1.com", "edgedl.me.gvt1.com"]);

/** The proxy's question: the session's egress policy, as web_fetch asks it (pinned to the address checked). */
async function decide(target: { host: string; port: number; url?: string }, context: ToolContext, refused: (why: string) => void): Promise<ProxyDecision> {
  if (CHROMIUM_OWN_HOSTS.has(target.host.toLowerCase())) return { refuse: "omp: Chromium's own background traffic is not let out." };
  const url = new URL(target.url ?? `https://${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}/`);
  try {
    const address = await checkAddress(url, { toolName: "browser", egress: context.egress, env: {} }, target.url ? `a browser request for ${target.url}` : `the browser's connection to ${target.host}:${target.port}`);
    return { connectTo: address ?? target.host };
  } catch (error) {
    const why = error instanceof WebError ? error.message : (error as Error).message;
    refused(why);
    return { refuse: why };
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    if (pending.length > MAX_ANSWER_BYTES) return;
    let newline: number;
    while ((newline = pending.indexOf("\n")) !== -1) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
  }
}

let running: BrowserHost | undefined;
let starting: Promise<BrowserHost> | undefined;

/** The process's browser, started on first use (one for every session of this omp, as the original's tabs are process-wide). */
export async function browserHost(context: ToolContext): Promise<BrowserHost> {
  if (running?.alive) {
    running.context = context;
    return running;
  }
  starting ??= BrowserHost.start(context).finally(() => (starting = undefined));
  running = await starting;
  running.context = context;
  return running;
}

/** The running browser, if any: `close` does not start one. */
export const runningBrowser = (): BrowserHost | undefined => (running?.alive ? running : undefined);
