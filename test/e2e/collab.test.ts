// Collab in the terminal: a host omp in tmux shares its session with /collab through `omp relay
// serve` on loopback; other omp processes join it (`omp join`, `/join`) and draw it with omp's
// own blocks, prompt it (full link) or only watch (view-only link); the relay going away leaves
// the host's session alone and everyone reconnects when it is back; revoke ends the old links.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type InteractiveSession, READY, startInteractive } from "../support/tty-session.ts";
import { Tty } from "../support/tty-tmux.ts";
import { RelayClient, type RelayProcess, startRelay } from "../support/relay.ts";
import { importRoomKey } from "../../core/collab/crypto.ts";
import { parseLink } from "../../core/collab/link.ts";
import { HostMessage } from "../../core/collab/messages.ts";
import { openJson, sealJson } from "../../core/collab/sealed-json.ts";
import { toBase64Url } from "../../core/collab/base64url.ts";
import { tempDir } from "../support/temp.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Turn } from "../support/standin/index.ts";
import { CHROMIUM, launchChromium, pageMeets, pageShows } from "../support/chromium.ts";

setDefaultTimeout(180_000);

const WIDE = { cols: 220, rows: 60 };
/** A phrase of the conversation that only the participants may ever see in the clear. */
const SECRET_PHRASE = "PERIWINKLE-ARMADILLO-42";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function host(script: Turn[], env: Record<string, string> = {}, args: string[] = []): Promise<InteractiveSession> {
  const session = await startInteractive({ ...WIDE, script, args, env: { USER: "hostuser", ...env } });
  cleanup.push(() => session.close());
  await session.tty.waitFor(READY);
  return session;
}

function guest(args: string[]): Tty {
  const tty = Tty.start({ home: tempDir("omp-collab-guest-"), cwd: tempDir("omp-collab-guest-cwd-"), ...WIDE, args, env: { OMP_NO_UPDATE_CHECK: "1", OMP_THEME: "dark" } });
  cleanup.push(() => tty.kill());
  return tty;
}

function run(tty: Tty, line: string): void {
  tty.type(line);
  tty.press("Enter");
}

/** The `omp join "…"` link of the newest link block on the screen. */
async function joinLinkOn(tty: Tty, title: string): Promise<string> {
  const screen = await tty.waitFor((text) => text.slice(text.lastIndexOf(title)).includes('omp join "'));
  const after = screen.slice(screen.lastIndexOf(title));
  return /omp join "([^"]+)"/.exec(after)![1]!;
}

const relayWs = (relay: RelayProcess) => relay.url.replace(/^http/, "ws");

async function relayOutput(relay: RelayProcess): Promise<string> {
  await relay.stop();
  return relay.log() + (await new Response(relay.child.stdout).text());
}

describe("collab", () => {
  test("a guest sees the streamed answer and tool blocks, prompts the host's agent; a view-only guest cannot; the relay sees no plaintext", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    const h = await host([
      { toolCalls: [{ name: "bash", arguments: { command: "echo tool-output-from-host" } }] },
      { text: `The host answers: ${SECRET_PHRASE}.` },
      { text: "Done for the guest: GUEST-REPLY-OK." },
    ]);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const link = await joinLinkOn(h.tty, "Collab session started!");
    expect(link).toStartWith(`${relayWs(relay)}/r/`);
    expect(await h.tty.waitFor("or any web browser:")).toContain(`${relay.url}/#`);

    const g = guest(["join", link]);
    await g.waitFor("Joined the session");
    await g.waitFor("guest of hostuser (host) · 1 guest");
    await h.tty.waitFor(/Collab: \S+ joined\./);
    await h.tty.waitFor("⇄ shared · 1 guest");

    run(h.tty, `show me ${SECRET_PHRASE}`);
    const seen = await g.waitFor(`The host answers: ${SECRET_PHRASE}.`, 30_000);
    expect(seen).toContain(`show me ${SECRET_PHRASE}`);
    expect(seen).toContain("✓ bash echo tool-output-from-host");
    expect(seen).toContain("tool-output-from-host");
    await g.waitFor((screen) => !screen.includes("Host working"));

    // The guest's prompt runs on the host: the stand-in model receives it, and both see the reply.
    run(g, "please check the GUEST-PROMPT-7 case");
    await g.waitFor("GUEST-REPLY-OK", 30_000);
    await h.tty.waitFor("GUEST-REPLY-OK");
    const last = h.standin.requests.at(-1)!;
    expect(JSON.stringify(last.body.messages.at(-1))).toContain("GUEST-PROMPT-7");
    await h.tty.waitFor(/\S+ prompted\./);

    // A view-only link watches, and cannot prompt: the guest is told, the host receives nothing.
    run(h.tty, "/collab view");
    const viewLink = await joinLinkOn(h.tty, "View-only link");
    expect(viewLink).not.toBe(link);
    expect(viewLink.length).toBeLessThan(link.length);
    const v = guest(["join", viewLink]);
    await v.waitFor("view-only: you can watch");
    expect(v.screen()).toContain(SECRET_PHRASE);
    const requests = h.standin.requests.length;
    run(v, "VIEWER-SHOULD-NOT-RUN");
    await v.waitFor("This is a view-only link");
    await h.tty.waitFor("(view-only).");
    await h.tty.waitFor("⇄ shared · 2 guests");
    expect(h.standin.requests.length).toBe(requests);
    expect(h.tty.history()).not.toContain("VIEWER-SHOULD-NOT-RUN");

    // /collab status lists the participants.
    run(h.tty, "/collab status");
    await h.tty.waitFor("2 guests:");

    // The relay forwarded everything without ever holding the conversation in the clear.
    const output = await relayOutput(relay);
    expect(output).toContain("listening on");
    expect(output).not.toContain(SECRET_PHRASE);
    expect(output).not.toContain("GUEST-PROMPT-7");
    expect(output).not.toContain("tool-output-from-host");
  });

  test("the host's run goes on when the relay dies mid-reply, everyone reconnects when it is back, and revoke ends the old links", async () => {
    const home = tempDir("omp-collab-relay-");
    // A relay that asks hosts for a token: the host presents OMP_RELAY_TOKEN, and shows it nowhere.
    const token = "relay-token-SHOULD-STAY-HIDDEN-0123";
    let relay = await startRelay(home, ["--token", token]);
    const port = new URL(relay.url).port;
    const h = await host([{ text: "First answer." }, { text: "Streaming on while the relay is down.", pauseAfterEvents: 3, pauseMs: 4000 }, { text: "Answer after the relay is back." }], { OMP_RELAY_TOKEN: token });
    run(h.tty, `/collab ${relayWs(relay)}`);
    const link = await joinLinkOn(h.tty, "Collab session started!");
    const g = guest(["join", link]);
    await g.waitFor("Joined the session");
    run(h.tty, "first");
    await g.waitFor("First answer.");

    // The relay dies in the middle of a streamed reply: the host's run goes on to its end.
    run(h.tty, "keep going");
    await g.waitFor("Host working");
    expect(h.tty.screen()).not.toContain("Streaming on while the relay is down.");
    await relay.stop();
    await h.tty.waitFor("the session goes on here");
    await h.tty.waitFor("Streaming on while the relay is down.", 30_000);
    await h.tty.waitFor("⇄ shared · relay unreachable");
    await g.waitFor("reconnecting…");
    // What the guest sends meanwhile is not lost silently: it is told, and keeps its text.
    run(g, "SENT-WHILE-DOWN");
    await g.waitFor("The host is not connected right now");
    expect(g.screen()).toContain("❯ SENT-WHILE-DOWN");

    relay = await startRelay(home, ["--token", token, "--port", port]);
    cleanup.push(() => relay.stop());
    await h.tty.waitFor("reconnected to the relay", 30_000);
    await g.waitFor("Back in the host's session.", 30_000);
    run(h.tty, "after");
    await g.waitFor("Answer after the relay is back.", 30_000);

    run(h.tty, "/collab revoke");
    const fresh = await joinLinkOn(h.tty, "New links:");
    expect(fresh).not.toBe(link);
    await g.waitFor("The host revoked this link");
    // The old link finds nobody to answer it.
    const late = guest(["join", link]);
    await late.waitFor("waiting for the host");
    const renewed = guest(["join", fresh]);
    await renewed.waitFor("Joined the session");
    expect(late.screen()).not.toContain("Joined the session");
    expect(h.tty.history()).not.toContain(token);
    expect(JSON.stringify(h.sessionEntries())).not.toContain(token);
    expect(JSON.stringify(h.standin.requests.map((request) => request.body))).not.toContain(token);
  });

  test("a full-link guest's Esc interrupts the host's agent, and the host's /leave ends the room", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const h = await host([{ text: "Starting a very long answer that the guest will cut short before it ends.", pauseAfterEvents: 4, pauseMs: 60_000 }, { text: "Next answer." }]);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const g = guest(["join", await joinLinkOn(h.tty, "Collab session started!")]);
    await g.waitFor("Joined the session");
    run(h.tty, "go");
    await g.waitFor("Host working");
    await g.waitFor("Starting");
    g.press("Escape");
    await h.tty.waitFor(/\S+ interrupted the agent\./);
    await h.tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    await g.waitFor((screen) => !screen.includes("Host working"));
    run(h.tty, "again");
    await g.waitFor("Next answer.");
    // The host's /leave stops sharing.
    run(h.tty, "/leave");
    await h.tty.waitFor("Stopped sharing");
    await g.waitFor("The host stopped sharing.");
    expect(h.tty.screen()).not.toContain("⇄ shared");
  });

  test("a guest joining late gets the conversation so far, long texts cut, follows the host to a new session, and is told when the host stops", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const long = Array.from({ length: 1500 }, (_, i) => `w${String(i).padStart(4, "0")}`).join(" ");
    const h = await host([{ text: `Earlier answer ALPHA-EARLY.` }, { text: `${long} END-OF-LONG-REPLY` }]);
    run(h.tty, "first");
    await h.tty.waitFor("ALPHA-EARLY");
    run(h.tty, "second");
    await h.tty.waitFor("END-OF-LONG-REPLY");
    run(h.tty, `/collab ${relayWs(relay)}`);
    const g = guest(["join", await joinLinkOn(h.tty, "Collab session started!")]);
    await g.waitFor("Joined the session");
    const seen = await g.waitFor("characters on the host)");
    expect(g.history()).toContain("ALPHA-EARLY");
    expect(g.history()).toContain("(4 messages;");
    expect(g.history()).not.toContain("END-OF-LONG-REPLY");
    // The host's model and context come with the state: the guest has no model of its own.
    expect(seen).toContain("claude-sonnet-4-5");
    // The host starts another conversation: the guest follows it.
    run(h.tty, "/new");
    await g.waitFor("The host switched to another session (0 messages).");
    run(h.tty, "/collab stop");
    await h.tty.waitFor("Stopped sharing");
    await g.waitFor("The host stopped sharing.");
    expect(await g.exitCode()).toBe(0);
  });

  test("a guest's prompt that needs an approval waits for the host user, and the guest is told; /help says what a guest can do", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const h = await host([{ toolCalls: [{ name: "bash", arguments: { command: "echo approved-by-host" } }] }, { text: "Ran it." }], {}, ["--approval-mode", "always-ask"]);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const g = guest(["join", await joinLinkOn(h.tty, "Collab session started!")]);
    await g.waitFor("Joined the session");
    run(g, "/help");
    await g.waitFor("Type a message to prompt the host's agent; esc interrupts it.");
    run(g, "run the echo");
    await h.tty.waitFor("Allow bash? echo approved-by-host");
    await g.waitFor("Waiting for the host to approve bash.");
    h.tty.press("y");
    await g.waitFor("Ran it.");
    expect(g.history()).toContain("approved-by-host");
  });

  test("the host itself refuses what a guest may not do, whatever client sent it", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const h = await host([{ text: "Nothing should reach me." }]);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const link = parseLink(await joinLinkOn(h.tty, "Collab session started!"), "ws://127.0.0.1:1");
    const key = await importRoomKey(link.key);
    // A client of its own: the room's key, but a forged write token, and then a slash command with the real one.
    const raw = async (writeToken: Uint8Array, name = "raw") => {
      const client = await RelayClient.connect(relay.url, link.roomId, "guest");
      cleanup.push(() => client.close());
      const messages: HostMessage[] = [];
      let opened = 0;
      const read = async () => {
        for (; opened < client.frames.length; opened++) {
          const message = await openJson(key, link.roomId, client.frames[opened]!, HostMessage);
          if (message) messages.push(message);
        }
      };
      client.send(await sealJson(key, link.roomId, { type: "hello", version: 1, name, client: "web", writeToken: toBase64Url(writeToken) }));
      const find = async (match: (message: HostMessage) => boolean): Promise<HostMessage> => {
        for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(20)) {
          await read();
          const found = messages.find(match);
          if (found) return found;
        }
        throw new Error(`no such message; got ${JSON.stringify(messages.map((message) => message.type))}`);
      };
      return { client, find, send: async (message: unknown) => client.send(await sealJson(key, link.roomId, message)) };
    };
    // Its name carries a terminal escape: the host shows the name without it.
    const forged = await raw(new Uint8Array(16).fill(7), "\u001b[31mRAW-EVIL\u0007");
    const welcome = await forged.find((message) => message.type === "welcome");
    expect(welcome.type === "welcome" && welcome.canWrite).toBe(false);
    await h.tty.waitFor("Collab: [31mRAW-EVIL joined (view-only).");
    await forged.send({ type: "prompt", text: "FORGED-PROMPT" });
    await forged.send({ type: "abort" });
    await forged.find((message) => message.type === "notice" && message.text.includes("does not take prompts"));
    await forged.find((message) => message.type === "notice" && message.text.includes("does not take interrupts"));

    const real = await raw(link.writeToken!);
    const granted = await real.find((message) => message.type === "welcome");
    expect(granted.type === "welcome" && granted.canWrite).toBe(true);
    await real.send({ type: "prompt", text: "/compact now" });
    await real.find((message) => message.type === "notice" && message.text.includes("Slash commands and skills are the host's"));
    expect(h.standin.requests.length).toBe(0);
    expect(h.tty.history()).not.toContain("FORGED-PROMPT");
  });

  test("/join in the interactive mode shows the shared session and /leave comes back; bad links are refused", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const h = await host([{ text: "Shared answer for the joiner." }]);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const link = await joinLinkOn(h.tty, "Collab session started!");
    const other = await startInteractive({ ...WIDE, script: [] });
    cleanup.push(() => other.close());
    await other.tty.waitFor(READY);
    run(other.tty, `/join ${link}`);
    await other.tty.waitFor("Joined the session");
    run(h.tty, "hello");
    await other.tty.waitFor("Shared answer for the joiner.");
    run(other.tty, "/leave");
    await other.tty.waitFor("back in your own");
    await h.tty.waitFor(/\S+ left\./);


    // A relay with a token turns away a host without it; the host's session is not disturbed.
    const guarded = await startRelay(tempDir("omp-collab-relay-"), ["--token", "another-relay-token-0123456789"]);
    cleanup.push(() => guarded.stop());
    run(h.tty, "/collab stop");
    await h.tty.waitFor("Stopped sharing");
    run(h.tty, `/collab ${relayWs(guarded)}`);
    await h.tty.waitFor("set OMP_RELAY_TOKEN or collab.relayToken");
    await h.tty.waitFor(READY);

    const bad = guest(["join", "not-a-link"]);
    expect(await bad.exitCode()).toBe(2);
    expect(bad.screen()).toContain("omp join: this is not a collab link");
  });

  test.skipIf(!CHROMIUM)("a browser opens the host's web link: the transcript and tool cards, and its prompt runs on the host", async () => {
    const relay = await startRelay(tempDir("omp-collab-relay-"));
    cleanup.push(() => relay.stop());
    const h = await host([
      { toolCalls: [{ name: "bash", arguments: { command: "echo web-tool-output" } }] },
      { text: "WEB-ANSWER-1 from the host." },
      { text: "WEB-REPLY-2 for the browser." },
    ]);
    run(h.tty, "list it");
    await h.tty.waitFor("WEB-ANSWER-1");
    run(h.tty, `/collab ${relayWs(relay)}`);
    const web = /or any web browser: (\S+)/.exec(await h.tty.waitFor(/or any web browser: \S+#\S+/))![1]!;
    expect(web).toStartWith(`${relay.url}/#`);
    const browser = await launchChromium();
    const tab = await browser.open(web);
    await pageShows(tab, "WEB-ANSWER-1 from the host.", "#transcript");
    await pageShows(tab, "web-tool-output", "#transcript");
    await pageShows(tab, "list it", "#transcript");
    await h.tty.waitFor(/Collab: .* joined\./);
    await pageMeets(tab, `!document.getElementById("prompt").disabled`);
    await tab.type("#prompt", "BROWSER-PROMPT-9 please");
    await tab.press("Enter");
    await h.tty.waitFor("WEB-REPLY-2 for the browser.");
    await pageShows(tab, "WEB-REPLY-2 for the browser.", "#transcript");
    expect(JSON.stringify(h.standin.requests.at(-1)!.body.messages.at(-1))).toContain("BROWSER-PROMPT-9");
    // The page's name field says a new hello at once: the host takes the new name without sending the conversation again.
    await tab.evaluate(`(() => { const field = document.getElementById("name"); field.value = "Bob Browser"; field.dispatchEvent(new Event("change")); return true; })()`);
    await h.tty.waitFor("is now Bob Browser.");
    await pageShows(tab, "Bob Browser", "#participants");
  });

  test("collab.relayToken and collab.displayName from the user's config: the relay lets the host in, guests see the name, and the session file never holds the token", async () => {
    const token = "settings-relay-token-7f3a9c2e1b";
    const relay = await startRelay(tempDir("omp-collab-relay-"), ["--token", token]);
    cleanup.push(() => relay.stop());
    const home = tempDir("omp-collab-home-");
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), `collab:\n  relayToken: ${token}\n  displayName: Alice Host\n`);
    const h = await startInteractive({ ...WIDE, home, script: [{ toolCalls: [{ name: "bash", arguments: { command: `echo token is ${token}` } }] }, { text: "Echoed." }] });
    cleanup.push(() => h.close());
    await h.tty.waitFor(READY);
    run(h.tty, `/collab ${relayWs(relay)}`);
    const g = guest(["join", await joinLinkOn(h.tty, "Collab session started!")]);
    await g.waitFor("guest of Alice Host (host)");
    run(h.tty, "echo it");
    await g.waitFor("Echoed.");
    // The session file keeps the command's output with the token redacted, as it does the provider keys.
    const kept = h.sessionEntries().filter((entry) => entry.type === "message" && entry.message.role === "toolResult");
    expect(JSON.stringify(kept)).toContain("token is [REDACTED]");
    expect(JSON.stringify(h.sessionEntries())).not.toContain(token);
  });
});
