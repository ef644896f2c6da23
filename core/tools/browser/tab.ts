import type { Cdp } from "./cdp.ts";
import type { BrowserContent, Viewport, WaitUntil } from "./protocol.ts";

/** The lifecycle event each `wait_until` waits for (Page.lifecycleEvent names). */
const LIFECYCLE: Record<WaitUntil, string> = { load: "load", domcontentloaded: "DOMContentLoaded", networkidle0: "networkIdle", networkidle2: "networkAlmostIdle" };
/** A screenshot past this is refused: it would cost the model more than it shows. */
const MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024;
const POLL_MS = 100;
/** Keys `press` knows by name; a single character is typed as itself. */
const KEYS: Record<string, { code: string; keyCode: number; text?: string }> = {
  Enter: { code: "Enter", keyCode: 13, text: "\r" },
  Tab: { code: "Tab", keyCode: 9 },
  Escape: { code: "Escape", keyCode: 27 },
  Backspace: { code: "Backspace", keyCode: 8 },
  Delete: { code: "Delete", keyCode: 46 },
  ArrowUp: { code: "ArrowUp", keyCode: 38 },
  ArrowDown: { code: "ArrowDown", keyCode: 40 },
  ArrowLeft: { code: "ArrowLeft", keyCode: 37 },
  ArrowRight: { code: "ArrowRight", keyCode: 39 },
  " ": { code: "Space", keyCode: 32, text: " " },
};

export class TabError extends Error {}

/** One page of the browser, driven over its own flattened CDP session; the `tab` of `run` code. */
export class Tab {
  /** What `run` code displayed (screenshots among them), in order; taken by the driver after each call. */
  outputs: BrowserContent[] = [];
  /** The run's deadline: helpers that wait stop there. */
  deadline = Number.POSITIVE_INFINITY;
  private readonly seen = new Set<string>();
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly cdp: Cdp,
    readonly targetId: string,
    private readonly sessionId: string,
    readonly dialogs: "accept" | "dismiss" | undefined,
    /** Turns a page's HTML into Markdown of its main content (web_fetch's converter). */
    private readonly toMarkdown: (html: string, url: string) => Promise<string | null>,
  ) {
    cdp.on("Page.lifecycleEvent", (params, session) => {
      if (session !== sessionId) return;
      this.seen.add(`${params.loaderId}:${params.name}`);
      for (const wake of this.waiters) wake();
    });
    cdp.on("Page.javascriptDialogOpening", (_params, session) => {
      if (session === sessionId && dialogs) void this.send("Page.handleJavaScriptDialog", { accept: dialogs === "accept" }).catch(() => {});
    });
  }

  static async open(cdp: Cdp, options: { dialogs: "accept" | "dismiss" | undefined; viewport: Viewport; toMarkdown: (html: string, url: string) => Promise<string | null> }): Promise<Tab> {
    const { targetId } = (await cdp.send("Target.createTarget", { url: "about:blank" })) as { targetId: string };
    const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
    const tab = new Tab(cdp, targetId, sessionId, options.dialogs, options.toMarkdown);
    await tab.send("Page.enable");
    await tab.send("Page.setLifecycleEventsEnabled", { enabled: true });
    await tab.setViewport(options.viewport);
    return tab;
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.cdp.send(method, params, this.sessionId);
  }

  async setViewport(viewport: Viewport): Promise<void> {
    await this.send("Emulation.setDeviceMetricsOverride", { width: viewport.width, height: viewport.height, deviceScaleFactor: viewport.scale ?? 1, mobile: false });
  }

  async goto(url: string, options: { waitUntil?: WaitUntil } = {}): Promise<void> {
    const result = (await this.send("Page.navigate", { url })) as { loaderId?: string; errorText?: string };
    if (result.errorText) throw new TabError(`Opening ${url} failed: ${result.errorText}${refusalHint(url, result.errorText)}`);
    if (!result.loaderId) return;
    const key = `${result.loaderId}:${LIFECYCLE[options.waitUntil ?? "load"]}`;
    await this.until(() => this.seen.has(key), `the page to reach "${options.waitUntil ?? "load"}" (${url})`);
  }

  /**
   * Runs `fn` in the page with JSON arguments and returns its JSON result: a function, or source
   * text (an expression; a function's source when arguments are given).
   */
  async evaluate(fn: ((...args: never[]) => unknown) | string, ...args: unknown[]): Promise<unknown> {
    const expression = typeof fn === "function" || args.length > 0 ? `(${fn.toString()})(...${JSON.stringify(args)})` : fn;
    const result = (await this.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true, userGesture: true })) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (result.exceptionDetails) throw new TabError(`In the page: ${result.exceptionDetails.exception?.description ?? result.exceptionDetails.text}`);
    return result.result.value;
  }

  title = async () => String(await this.evaluate("document.title"));
  url = async () => String(await this.evaluate("location.href"));
  content = async () => String(await this.evaluate("document.documentElement ? document.documentElement.outerHTML : ''"));

  /** The page's main content as Markdown (Readability, then Turndown: web_fetch's converter); null when there is none. */
  async extract(): Promise<string | null> {
    return this.toMarkdown(await this.content(), await this.url());
  }

  /** A PNG of the viewport, the whole page or one element; shown to the model unless `silent`. */
  async screenshot(options: { selector?: string; fullPage?: boolean; silent?: boolean } = {}): Promise<{ mimeType: string; bytes: number; width: number; height: number }> {
    let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
    if (options.selector) {
      const box = (await this.waitFor(options.selector, "box")) as { x: number; y: number; width: number; height: number };
      clip = { ...box, scale: 1 };
    }
    const { data } = (await this.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: options.fullPage === true, ...(clip ? { clip } : {}) })) as { data: string };
    const bytes = Buffer.from(data, "base64");
    if (bytes.length > MAX_SCREENSHOT_BYTES) {
      throw new TabError(`The screenshot is ${(bytes.length / 1024 / 1024).toFixed(1)} MB, over the ${MAX_SCREENSHOT_BYTES / 1024 / 1024} MB limit: take one element (selector), or a smaller viewport.`);
    }
    const width = bytes.readUInt32BE(16);
    const height = bytes.readUInt32BE(20);
    if (!options.silent) {
      this.outputs.push({ type: "text", text: `Screenshot ${width}x${height} (${Math.round(bytes.length / 1024)} KB)` });
      this.outputs.push({ type: "image", data, mimeType: "image/png" });
    }
    return { mimeType: "image/png", bytes: bytes.length, width, height };
  }

  /** Waits for `selector` (CSS) to match a rendered element, scrolls it into view; its centre, or its box. */
  async waitFor(selector: string, shape: "center" | "box" = "center"): Promise<unknown> {
    if (/^p-[a-z]+\//.test(selector)) throw new TabError(`Selector prefix in ${JSON.stringify(selector)} is not supported: use a CSS selector.`);
    const probe = `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return null; el.scrollIntoView({ block: "center", inline: "center" }); const r = el.getBoundingClientRect(); if (r.width === 0 && r.height === 0) return null; return ${
      shape === "box" ? "{ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height }" : "{ x: r.left + r.width / 2, y: r.top + r.height / 2 }"
    }; })()`;
    let found: unknown = null;
    await this.until(async () => (found = await this.evaluate(probe)) !== null, `an element matching ${JSON.stringify(selector)}`);
    return found;
  }

  async click(selector: string): Promise<void> {
    const { x, y } = (await this.waitFor(selector)) as { x: number; y: number };
    await this.send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y });
    await this.send("Input.dispatchMouseEvent", { type: "mousePressed", x, y, button: "left", clickCount: 1 });
    await this.send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button: "left", clickCount: 1 });
  }

  /** Clicks `selector` and types `text` key by key (key events, then input). */
  async type(selector: string, text: string): Promise<void> {
    await this.click(selector);
    for (const char of text) await this.press(char);
  }

  /** Sets an input's value at once, with the input and change events a user's typing would fire. */
  async fill(selector: string, value: string): Promise<void> {
    await this.waitFor(selector);
    await this.evaluate(
      `(sel, text) => { const el = document.querySelector(sel); el.focus(); el.value = text; el.dispatchEvent(new Event("input", { bubbles: true })); el.dispatchEvent(new Event("change", { bubbles: true })); }`,
      selector,
      value,
    );
  }

  async press(key: string): Promise<void> {
    const known = KEYS[key];
    const text = known ? known.text : key.length === 1 ? key : undefined;
    if (!known && text === undefined) throw new TabError(`Unknown key ${JSON.stringify(key)}: use one character or one of ${Object.keys(KEYS).join(", ")}.`);
    const base = { key, code: known?.code ?? "", windowsVirtualKeyCode: known?.keyCode ?? key.toUpperCase().charCodeAt(0) };
    await this.send("Input.dispatchKeyEvent", { type: text ? "keyDown" : "rawKeyDown", ...base, ...(text ? { text } : {}) });
    await this.send("Input.dispatchKeyEvent", { type: "keyUp", ...base });
  }

  /** Chooses the options of a <select> by value; the values chosen. */
  async select(selector: string, ...values: string[]): Promise<string[]> {
    await this.waitFor(selector);
    const chosen = await this.evaluate(
      `(sel, wanted) => { const el = document.querySelector(sel); if (!(el instanceof HTMLSelectElement)) return null; for (const option of el.options) option.selected = wanted.includes(option.value); el.dispatchEvent(new Event("input", { bubbles: true })); el.dispatchEvent(new Event("change", { bubbles: true })); return [...el.selectedOptions].map((option) => option.value); }`,
      selector,
      values,
    );
    if (chosen === null) throw new TabError(`${JSON.stringify(selector)} is not a <select> element.`);
    return chosen as string[];
  }

  /** Resolves when `done` holds, checked on page events and every POLL_MS; throws at the run's deadline. */
  private async until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
    while (!(await done())) {
      if (Date.now() >= this.deadline) throw new TabError(`Timed out waiting for ${what}.`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(POLL_MS, Math.max(0, this.deadline - Date.now())));
        this.waiters.add(wake);
      });
    }
  }
}

/** What a failed navigation most likely meant under omp's guard. */
function refusalHint(url: string, errorText: string): string {
  if (/^file:/i.test(url) && /ACCESS_DENIED|FILE_NOT_FOUND/.test(errorText)) return " (the sandbox hides this path from the browser)";
  if (/TUNNEL_CONNECTION_FAILED|PROXY/.test(errorText)) return " (omp's egress policy refused the host, or it did not answer)";
  return "";
}
