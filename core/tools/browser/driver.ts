import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { Cdp } from "./cdp.ts";
import type { BrowserContent, DriverAnswer, DriverReady, DriverRequest, Viewport } from "./protocol.ts";
import { Tab } from "./tab.ts";

/**
 * The browser's side of the tool: `omp __browser-driver <chromium> <profile> <proxy port>`, started
 * by host.ts inside the command sandbox. It starts Chromium (which inherits the confinement),
 * holds its DevTools pipe and the tabs, and runs the model's `run` code, which is the model's code
 * like a bash command's: in here it reads and connects only as the sandbox lets it.
 */

/** The original's headless viewport. */
const DEFAULT_VIEWPORT: Viewport = { width: 1365, height: 768, scale: 1.25 };
/** Text a run returns inline; the rest is cut with a note. */
const MAX_TEXT_CHARS = 64 * 1024;
/** A request line from omp past this is not one omp sends. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;

function chromiumArgs(profile: string, proxyPort: string, viewport: Viewport): string[] {
  return [
    "--headless",
    // Chromium's own sandbox needs namespaces the omp sandbox's seccomp filter refuses; the omp sandbox confines it instead.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
    `--user-data-dir=${profile}`,
    // Every request, loopback included, goes through omp's egress proxy; no UDP around it.
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    // Nothing of Chromium's own phoning home: each would be a host to approve.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-component-extensions-with-background-pages",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--disable-sync",
    "--disable-breakpad",
    "--no-pings",
    "--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater,SafeBrowsing",
    "--no-first-run",
    "--no-default-browser-check",
    "--metrics-recording-only",
    "--mute-audio",
    `--window-size=${viewport.width},${viewport.height}`,
    "about:blank",
  ];
}

export async function serveBrowserDriver(args: string[]): Promise<void> {
  const [executable, profile, proxyPort] = args;
  const write = (message: DriverAnswer | DriverReady) => process.stdout.write(`${JSON.stringify(message)}\n`);
  if (!executable || !profile || !proxyPort) return void write({ ready: false, error: "usage: omp __browser-driver <chromium> <profile dir> <proxy port>" });
  const child = spawn(executable, chromiumArgs(profile, proxyPort, DEFAULT_VIEWPORT), { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], env: { ...process.env, HOME: profile, TMPDIR: profile } });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk.toString("utf8");
  });
  const cdp = new Cdp(child.stdio[3] as Writable, child.stdio[4] as Readable);
  // The browser gone, the driver has nothing left to do: omp sees its stdout close.
  child.on("exit", () => process.exit(0));
  let version: string;
  try {
    version = String((await cdp.send("Browser.getVersion")).product);
  } catch (error) {
    return void write({ ready: false, error: `${executable} did not start: ${(error as Error).message} ${stderr.trim().split("\n").slice(-3).join(" ")}`.trim() });
  }
  write({ ready: true, version });
  const driver = new Driver(cdp);
  let pending = "";
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    pending += chunk.toString("utf8");
    if (pending.length > MAX_LINE_BYTES) break;
    let newline: number;
    while ((newline = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const request = JSON.parse(line) as DriverRequest;
      void driver.handle(request).then(write);
    }
  }
  // omp closed our stdin (it exits, or closes the browser): the browser goes first.
  child.kill("SIGKILL");
  process.exit(0);
}

class Driver {
  private readonly tabs = new Map<string, Tab>();
  private readonly busy = new Set<string>();

  constructor(private readonly cdp: Cdp) {}

  async handle(request: DriverRequest): Promise<DriverAnswer> {
    const name = "name" in request ? (request.name ?? "main") : "main";
    if (request.op !== "close" && this.busy.has(name)) return { id: request.id, error: `Tab "${name}" is busy with another call; wait for it, or use another name.`, content: [] };
    this.busy.add(name);
    const tab = this.tabs.get(name);
    try {
      const content = await this.perform(request, name);
      const open = this.tabs.get(name);
      return { id: request.id, content, ...(open && request.op !== "close" ? await this.where(open) : {}) };
    } catch (error) {
      const outputs = tab?.outputs.splice(0) ?? [];
      return { id: request.id, error: (error as Error).message ?? String(error), content: outputs };
    } finally {
      this.busy.delete(name);
    }
  }

  private async where(tab: Tab): Promise<{ url?: string; title?: string }> {
    try {
      return { url: await tab.url(), title: await tab.title() };
    } catch {
      return {};
    }
  }

  private async perform(request: DriverRequest, name: string): Promise<BrowserContent[]> {
    switch (request.op) {
      case "open": {
        let tab = this.tabs.get(name);
        let verb = "Reused";
        if (tab && tab.dialogs !== request.dialogs) {
          await this.close(name);
          tab = undefined;
        }
        if (!tab) {
          tab = await Tab.open(this.cdp, { dialogs: request.dialogs, viewport: request.viewport ?? DEFAULT_VIEWPORT, toMarkdown });
          this.tabs.set(name, tab);
          verb = "Opened";
        } else if (request.viewport) await tab.setViewport(request.viewport);
        tab.deadline = request.deadline;
        if (request.url) await tab.goto(request.url, request.waitUntil ? { waitUntil: request.waitUntil } : {});
        const { url, title } = await this.where(tab);
        return [{ type: "text", text: `${verb} tab "${name}" (headless Chromium): ${url}${title ? ` — ${title}` : ""}` }];
      }
      case "run": {
        const tab = this.tabs.get(name);
        if (!tab) throw new Error(`Tab "${name}" is not open: call browser with action "open" first.`);
        tab.deadline = request.deadline;
        tab.outputs = [];
        const display = (value: unknown) => {
          if (value === undefined) return;
          if (isImage(value)) tab.outputs.push({ type: "image", data: value.data, mimeType: value.mimeType });
          else tab.outputs.push({ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) });
        };
        const assert = (condition: unknown, message?: string) => {
          if (!condition) throw new Error(message ?? "Assertion failed");
        };
        const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        // `page` is the tab too: puppeteer's names that code written for the original uses (goto, evaluate, title, url, content, click, type, select, screenshot).
        const page = Object.assign(Object.create(tab) as Tab, { waitForSelector: (selector: string) => tab.waitFor(selector), setViewport: (viewport: Viewport) => tab.setViewport(viewport) });
        const body = new AsyncFunction("page", "tab", "browser", "assert", "wait", "display", request.code);
        const ms = Math.max(0, request.deadline - Date.now());
        let timer: ReturnType<typeof setTimeout> | undefined;
        const value = await Promise.race([
          body(page, tab, { version: () => this.cdp.send("Browser.getVersion").then((result) => result.product) }, assert, wait, display),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`Browser code execution timed out after ${ms}ms`)), ms))),
        ]).finally(() => clearTimeout(timer));
        const content = tab.outputs.splice(0);
        if (value !== undefined) content.push({ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? String(value) });
        if (content.length === 0) content.push({ type: "text", text: `Ran code on tab "${name}"` });
        return content.map((item) => (item.type === "text" && item.text.length > MAX_TEXT_CHARS ? { type: "text", text: `${item.text.slice(0, MAX_TEXT_CHARS)}\n[… cut at ${MAX_TEXT_CHARS} characters of ${item.text.length}; return less, or a part of it]` } : item));
      }
      case "close": {
        const names = request.all ? [...this.tabs.keys()] : [name];
        const closed: string[] = [];
        for (const each of names) if (await this.close(each)) closed.push(each);
        if (closed.length === 0) return [{ type: "text", text: request.all ? "No tabs were open." : `No tab named "${name}".` }];
        return [{ type: "text", text: `Closed ${closed.map((each) => `"${each}"`).join(", ")}` }];
      }
    }
  }

  private async close(name: string): Promise<boolean> {
    const tab = this.tabs.get(name);
    if (!tab) return false;
    this.tabs.delete(name);
    await this.cdp.send("Target.closeTarget", { targetId: tab.targetId }).catch(() => {});
    return true;
  }
}

function isImage(value: unknown): value is { data: string; mimeType: string } {
  const record = value as { type?: unknown; data?: unknown; mimeType?: unknown };
  return typeof value === "object" && value !== null && record.type === "image" && typeof record.data === "string" && typeof record.mimeType === "string";
}

async function toMarkdown(html: string, url: string): Promise<string | null> {
  const { htmlToMarkdown } = await import("../../web/html-markdown.ts");
  const page = await htmlToMarkdown(html, url);
  const text = `${page.title ? `# ${page.title}\n\n` : ""}${page.markdown}`.trim();
  return text === "" ? null : text;
}
