// Debian's headless Chromium for tests that drive a real page: started with its DevTools pipe and
// driven through omp's own CDP client and tab (core/tools/browser), no port, no proxy.
import { afterAll } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { Cdp } from "../../core/tools/browser/cdp.ts";
import { findChromium } from "../../core/tools/browser/chromium.ts";
import { Tab } from "../../core/tools/browser/tab.ts";
import { tempDir } from "./temp.ts";

export const CHROMIUM = findChromium();

export interface Browser {
  cdp: Cdp;
  /** A new tab; `before` runs once it exists and before it loads `url` (to enable domains). */
  open(url: string, before?: (tab: Tab) => Promise<void>): Promise<Tab>;
}

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error("Chromium is not installed (apt-get install chromium)");
  const profile = tempDir("omp-chromium-");
  const child = spawn(CHROMIUM, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-pipe", `--user-data-dir=${profile}`, "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-extensions", "about:blank"], {
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
    env: { ...process.env, HOME: profile },
  });
  running.push(child);
  const cdp = new Cdp(child.stdio[3] as Writable, child.stdio[4] as Readable);
  await cdp.send("Browser.getVersion");
  return {
    cdp,
    async open(url, before) {
      const tab = await Tab.open(cdp, { dialogs: "dismiss", viewport: { width: 1000, height: 800 }, toMarkdown: async () => null });
      await before?.(tab);
      await tab.goto(url);
      return tab;
    },
  };
}

/** Waits until the page's `selector` shows `text` (innerText); says what it showed instead. */
export async function pageShows(tab: Tab, text: string, selector = "body", timeoutMs = 30_000): Promise<void> {
  const shown = () => tab.evaluate("(sel) => document.querySelector(sel)?.innerText ?? ''", selector).then(String);
  const deadline = Date.now() + timeoutMs;
  while (!(await shown()).includes(text)) {
    if (Date.now() > deadline) throw new Error(`the page never showed ${JSON.stringify(text)}; it shows:\n${await shown()}`);
    await Bun.sleep(25);
  }
}

/** Waits until a JavaScript expression holds on the page. */
export async function pageMeets(tab: Tab, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await tab.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`the page never met ${expression}`);
    await Bun.sleep(25);
  }
}
