// Issue 24 in the interactive mode: Ctrl+B sends the model's running bash call and a `!command` to
// the background, the status line counts running jobs, /jobs watches one's output live and kills it.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);

const ready = readySessions();

/** Live sleeps of exactly this many seconds (a number no other test uses). */
function sleeping(seconds: string): number {
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === `sleep\0${seconds}\0`) count++;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}

describe("jobs in the interactive mode", () => {
  test("Ctrl+B backgrounds the model's bash call and a !command; the status line counts them; /jobs watches and kills", async () => {
    const tag = `600.5${process.pid}${Date.now() % 100000}`;
    const s = await ready({
      script: [
        { toolCalls: [{ id: "fg", name: "bash", arguments: { command: `echo model-started; while :; do echo tick-$((i+=1)); sleep 0.2; done; sleep ${tag}` } }] },
        { text: "It goes on in the background." },
      ],
    });
    const { tty } = s;
    tty.type("run the ticker");
    tty.press("Enter");
    await tty.waitFor("ctrl+b backgrounds");
    await tty.waitFor("tick-2");
    tty.press("C-b");
    await tty.waitFor("It goes on in the background.");
    await tty.waitFor(/1 job\b/);
    // The model was told, with the job's id.
    const toolResult = JSON.stringify(s.standin.requests.filter((r) => r.method === "POST").at(-1)!.body);
    expect(toolResult).toContain("The user sent it to the background after");
    expect(toolResult).toContain("as job 1");

    tty.type(`!echo bang-started; sleep ${tag}`);
    tty.press("Enter");
    await tty.waitFor("bang-started");
    await tty.waitFor("esc to stop · ctrl+b backgrounds");
    tty.press("C-b");
    await tty.waitFor("Continues in the background as job 2");
    await tty.waitFor(/2 jobs\b/);
    expect(sleeping(tag)).toBe(1);

    // /jobs → pick job 1 → watch: its output keeps arriving in the overlay.
    tty.type("/jobs");
    tty.press("Enter");
    await tty.waitFor("Background jobs");
    tty.press("Enter");
    await tty.waitFor("watch its output");
    tty.press("Enter");
    await tty.waitFor("esc close · k kill");
    const first = Number(/tick-(\d+)/g.exec(tty.screen())?.[1] ?? 0);
    await tty.waitFor((screen) => [...screen.matchAll(/tick-(\d+)/g)].some((m) => Number(m[1]) > first + 3));
    tty.press("k");
    await tty.waitFor(/job 1 killed/);
    tty.press("Escape");
    await tty.waitFor((screen) => !screen.includes("esc close · k kill") && / 1 job\b/.test(screen));

    tty.type("/jobs kill 2");
    tty.press("Enter");
    await tty.waitFor(/job 2 killed/);
    await tty.waitFor((screen) => !/\d+ jobs? ·/.test(screen) && !/ 1 job\b/.test(screen));
    expect(sleeping(tag)).toBe(0);
  });
});
