// The web guest the relay serves at `/`, in Debian's headless Chromium driven over CDP: the test is
// the host (sealing with core/collab), the page joins from the link's fragment, shows the
// transcript from the welcome and the streamed events, prompts and interrupts with a full link,
// cannot with a view-only one, never sends the key, and reconnects when the relay comes back.
import { afterAll, describe, expect, test } from "bun:test";
import { toBase64Url } from "../../core/collab/base64url.ts";
import { type CollabLink, newRoom, parseLink, viewOnly, webLink } from "../../core/collab/link.ts";
import type { CollabState, HostMessage } from "../../core/collab/messages.ts";
import type { Tab } from "../../core/tools/browser/tab.ts";
import { CHROMIUM, launchChromium } from "../support/chromium.ts";
import { tempDir } from "../support/omp.ts";
import { SealedHost, type RelayProcess, startRelay, waitUntil } from "../support/relay.ts";
import { READY, startInteractive } from "../support/tty-session.ts";
import type { Tty } from "../support/tty-tmux.ts";

const home = tempDir("omp-relay-web-");
let relay: RelayProcess = await startRelay(home);
afterAll(() => relay.stop());

const state = (streaming: boolean): CollabState => ({
  model: { provider: "anthropic", id: "claude-sonnet-4-5", thinking: "medium" },
  cwd: "/home/dev/project",
  streaming,
  contextTokens: 1200,
  contextWindow: 200000,
  cost: 0.01,
  participants: [
    { peer: 0, name: "alice (host)", canWrite: true, client: "omp" },
    { peer: 1, name: "web guest", canWrite: true, client: "web" },
  ],
});

const TRANSCRIPT = [
  { role: "user", content: "What does the README say?", timestamp: 1 },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "HIDDEN-THOUGHT about the file" },
      { type: "text", text: "EARLIER-ANSWER: let me look." },
      { type: "toolCall", id: "t1", name: "read", arguments: { path: "README.md" } },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 2,
  },
  { role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "README-CONTENT-LINE" }], isError: false, timestamp: 3 },
];

const welcome = (peer: number, canWrite: boolean): HostMessage => ({ type: "welcome", version: 1, peer, canWrite, sessionId: "session-0123456789", messages: TRANSCRIPT, state: state(false) });
const event = (value: Record<string, unknown> & { type: string }): HostMessage => ({ type: "event", event: value });

async function pageText(tab: Tab, selector = "body"): Promise<string> {
  return String(await tab.evaluate("(sel) => document.querySelector(sel)?.innerText ?? ''", selector));
}

async function shows(tab: Tab, text: string, selector = "body"): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await pageText(tab, selector)).includes(text)) {
    if (Date.now() > deadline) throw new Error(`the page never showed ${JSON.stringify(text)}; it shows:\n${await pageText(tab)}`);
    await Bun.sleep(25);
  }
}

const parseWebLink = (link: string) => parseLink(link, relay.url);

/** Opens the link in a new tab, recording every URL the page asks for (requests and WebSockets). */
async function openGuest(browser: Awaited<ReturnType<typeof launchChromium>>, link: CollabLink) {
  const urls: string[] = [];
  const console: string[] = [];
  const tab = await browser.open(webLink(link), async (opened) => {
    await opened.send("Network.enable");
    await opened.send("Log.enable");
    await opened.send("Runtime.enable");
    browser.cdp.on("Log.entryAdded", (params) => console.push(String((params.entry as { text: string }).text)));
    browser.cdp.on("Runtime.exceptionThrown", (params) => console.push(JSON.stringify(params.exceptionDetails)));
    browser.cdp.on("Network.requestWillBeSent", (params) => urls.push(String((params.request as { url: string }).url)));
    browser.cdp.on("Network.webSocketCreated", (params) => urls.push(String(params.url)));
  });
  return { tab, urls, console };
}

describe.skipIf(!CHROMIUM)("the web guest in headless Chromium", () => {
  test("the relay serves the page with a self-only Content-Security-Policy", async () => {
    const page = await fetch(`${relay.url}/`);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(await page.text()).toContain('src="/guest.js"');
    expect((await fetch(`${relay.url}/guest.js`)).headers.get("content-type")).toStartWith("text/javascript");
  });

  test("a full link: transcript, streamed text, tool cards; prompts and interrupts reach the host; the key never leaves the page; reconnects after the relay restarts", async () => {
    const browser = await launchChromium();
    const link = newRoom(relay.url);
    let host = await SealedHost.connect(relay.url, link);
    const { tab, urls, console } = await openGuest(browser, link);

    const hello = await host.message((m) => m.message.type === "hello");
    expect(hello.message).toMatchObject({ type: "hello", client: "web", name: "web guest", writeToken: toBase64Url(link.writeToken!) });
    await host.send(hello.peer, welcome(hello.peer, true));
    await shows(tab, "EARLIER-ANSWER: let me look.", "#transcript");
    await shows(tab, "README-CONTENT-LINE", "#transcript");
    await shows(tab, "read README.md", "#transcript");
    expect(await pageText(tab, "#transcript")).toContain("What does the README say?");
    // Thinking is there, folded.
    expect(await tab.evaluate(`[document.querySelector("details.thinking").open, document.querySelector("details.thinking").textContent]`)).toEqual([false, "thinkingHIDDEN-THOUGHT about the file"]);
    expect(await pageText(tab, "#participants")).toContain("alice (host)");

    await host.send(0, event({ type: "agent_start" }));
    await host.send(0, event({ type: "message_start", message: { role: "user", content: "run the listing", timestamp: 4 } }));
    await host.send(0, event({ type: "message_start", message: { role: "assistant", content: [], timestamp: 5 } }));
    await host.send(0, event({ type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } }));
    await host.send(0, event({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Streaming " } }));
    await shows(tab, "Streaming", "#transcript .live");
    await host.send(0, event({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "answer LIVE-42" } }));
    await shows(tab, "Streaming answer LIVE-42", "#transcript .live");

    // While it streams, Interrupt is live and sends an abort.
    await waitFor(tab, `!document.getElementById("interrupt").disabled`);
    await tab.click("#interrupt");
    expect((await host.message((m) => m.message.type === "abort")).peer).toBe(hello.peer);

    const final = { ...TRANSCRIPT[1]!, content: [{ type: "text", text: "Streaming answer LIVE-42" }, { type: "toolCall", id: "t2", name: "bash", arguments: { command: "ls" } }], timestamp: 5 };
    await host.send(0, event({ type: "message_end", message: final }));
    await host.send(0, event({ type: "tool_call", toolCallId: "t2", toolName: "bash", input: { command: "ls" }, presentation: { title: "Run ls -la", kind: "execute", locations: [] } }));
    await host.send(0, event({ type: "tool_execution_update", toolCallId: "t2", toolName: "bash", output: "partial-out" }));
    await shows(tab, "partial-out", "#transcript");
    await host.send(0, event({ type: "message_end", message: { role: "toolResult", toolCallId: "t2", toolName: "bash", content: [{ type: "text", text: "file-a\nfile-b" }], isError: false, timestamp: 6 } }));
    await host.send(0, event({ type: "agent_end", stopReason: "stop", usage: (TRANSCRIPT[1] as { usage: unknown }).usage }));
    await shows(tab, "Run ls -la", "#transcript");
    await shows(tab, "file-a\nfile-b", "#transcript");
    expect(await tab.evaluate(`document.querySelectorAll("#transcript .live").length`)).toBe(0);

    await waitFor(tab, `!document.getElementById("prompt").disabled`);
    await tab.type("#prompt", "please run the tests");
    await tab.press("Enter");
    const prompt = await host.message((m) => m.message.type === "prompt");
    expect(prompt).toEqual({ peer: hello.peer, message: { type: "prompt", text: "please run the tests" } });

    // A new name is said to the host at once, and kept for the next hello.
    await tab.fill("#name", "Dana");
    expect((await host.message((m) => m.message.type === "hello" && m.message.name === "Dana")).peer).toBe(hello.peer);

    const secret = new URL(webLink(link)).hash.slice(1).split(".")[1]!;
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(urls.some((url) => url.endsWith(`/r/${link.roomId}?role=guest`))).toBe(true);
    for (const url of urls) expect(url).not.toContain(secret);
    // Nothing the page does trips its own Content-Security-Policy, and nothing threw.
    expect(console).toEqual([]);

    // The relay goes away and comes back on the same port: the page reconnects and says hello again.
    const port = new URL(relay.url).port;
    await relay.stop();
    await shows(tab, "reconnecting", "#status");
    relay = await startRelay(home, ["--port", port]);
    host = await SealedHost.connect(relay.url, link);
    const again = await host.message((m) => m.message.type === "hello");
    expect(again.message).toMatchObject({ name: "Dana", writeToken: toBase64Url(link.writeToken!) });
    await host.send(again.peer, welcome(again.peer, true));
    await shows(tab, "Connected to session", "#status");
    await shows(tab, "EARLIER-ANSWER", "#transcript");
  });

  test("a view-only link shows the session but cannot prompt", async () => {
    const browser = await launchChromium();
    const link = newRoom(relay.url);
    const host = await SealedHost.connect(relay.url, link);
    const { tab } = await openGuest(browser, viewOnly(link));
    const hello = await host.message((m) => m.message.type === "hello");
    expect(hello.message.type === "hello" && hello.message.writeToken).toBeUndefined();
    await host.send(hello.peer, welcome(hello.peer, false));
    await shows(tab, "EARLIER-ANSWER", "#transcript");
    await shows(tab, "View-only link", "#view-only");
    expect(await tab.evaluate(`[document.getElementById("composer").hidden, document.getElementById("prompt").disabled]`)).toEqual([true, true]);
    // Even forced, the form sends nothing: the host hears a full guest's prompt and nothing from this one.
    await tab.evaluate(`document.getElementById("prompt").value = "let me in"; document.getElementById("composer").requestSubmit(); document.getElementById("interrupt").click()`);
    const full = await openGuest(browser, link);
    const fullHello = await host.message((m) => m.message.type === "hello" && m.peer !== hello.peer);
    await host.send(fullHello.peer, welcome(fullHello.peer, true));
    await waitFor(full.tab, `!document.getElementById("prompt").disabled`);
    await full.tab.type("#prompt", "from the full link");
    await full.tab.press("Enter");
    await host.message((m) => m.message.type === "prompt");
    expect((await host.messages()).filter((m) => m.peer === hello.peer).map((m) => m.message.type)).toEqual(["hello"]);
  });
});

/** Waits until `expression` is true in the page. */
async function waitFor(tab: Tab, expression: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await tab.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`the page never met ${expression}`);
    await Bun.sleep(25);
  }
}

/** The newest browser link under `title` on the host's screen. */
async function browserLinkOn(tty: Tty, title: string): Promise<string> {
  const screen = await tty.waitFor((text) => /or any web browser: http:\/\/\S+/.test(text.slice(text.lastIndexOf(title))));
  return /or any web browser: (http:\/\/\S+)/.exec(screen.slice(screen.lastIndexOf(title)))![1]!;
}

function enter(tty: Tty, line: string): void {
  tty.type(line);
  tty.press("Enter");
}

describe.skipIf(!CHROMIUM)("the web guest with a real omp host", () => {
  test("/collab's browser link: the page shows the conversation so far and the streamed reply to its own prompt, which the host's model received; the view-only link's page has no composer", async () => {
    const h = await startInteractive({
      cols: 220,
      rows: 60,
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo web-tool-output" } }] },
        { text: "The host answers BLUE-HERON-7." },
        { text: "Reply for the web guest: WEB-REPLY-OK." },
      ],
    });
    try {
      await h.tty.waitFor(READY);
      enter(h.tty, "first question BEFORE-JOIN");
      await h.tty.waitFor("BLUE-HERON-7", 60_000);
      enter(h.tty, `/collab ${relay.url.replace(/^http/, "ws")}`);
      const link = await browserLinkOn(h.tty, "Collab session started!");
      expect(link).toStartWith(`${relay.url}/#`);

      const browser = await launchChromium();
      const { tab, console } = await openGuest(browser, { ...parseWebLink(link) });
      await shows(tab, "The host answers BLUE-HERON-7.", "#transcript");
      await shows(tab, "first question BEFORE-JOIN", "#transcript");
      await shows(tab, "web-tool-output", "#transcript");
      await h.tty.waitFor(/web guest joined/);

      await waitFor(tab, `!document.getElementById("prompt").disabled`);
      await tab.type("#prompt", "a question from the WEB-PAGE-3");
      await tab.press("Enter");
      await shows(tab, "Reply for the web guest: WEB-REPLY-OK.", "#transcript");
      await h.tty.waitFor("WEB-REPLY-OK");
      expect(JSON.stringify(h.standin.requests.at(-1)!.body.messages.at(-1))).toContain("WEB-PAGE-3");
      expect(await pageText(tab, "#transcript")).toContain("a question from the WEB-PAGE-3");
      expect(console).toEqual([]);

      enter(h.tty, "/collab view");
      const viewLink = await browserLinkOn(h.tty, "View-only link");
      const viewer = await openGuest(browser, parseWebLink(viewLink));
      await shows(viewer.tab, "WEB-REPLY-OK", "#transcript");
      await shows(viewer.tab, "View-only link", "#view-only");
      expect(await viewer.tab.evaluate(`document.getElementById("composer").hidden`)).toBe(true);
      await h.tty.waitFor("(view-only).");
    } finally {
      await h.close();
    }
  });
});
