// /memory in the interactive mode: the memories the model retained are listed in a picker, one
// picked is forgotten or edited (its text comes back in the editor as /memory edit), view shows the
// newest as a first prompt brings them, stats, diagnose and rebuild work on the store, clear asks
// first; each change reaches the store dist/omp keeps.
import { expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectBank } from "../../core/memory/banks.ts";
import { MemoryStore } from "../../core/memory/store.ts";
import { tempDir } from "../support/omp.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);
const ready = readySessions();

test("/memory lists the retained memories, forgets one, edits one through the editor, views and clears", async () => {
  const s = await ready({
    script: [
      { toolCalls: [{ name: "retain", arguments: { items: [{ content: "The linter runs with make lint" }, { content: "Ports below 1024 need root here" }] } }] },
      { text: "Noted both." },
    ],
  });
  const { tty } = s;
  const contents = () => MemoryStore.using(join(s.home, ".omp", "agent", "memories", "mnemopi", "mnemopi.db"), (store) => store.list([projectBank(s.cwd)], 10).map((m) => m.content));
  tty.type("remember these");
  tty.press("Enter");
  await tty.waitFor("Noted both.");

  tty.type("/memory");
  tty.press("Enter");
  await tty.waitFor("Memories (2)");
  await tty.waitFor("The linter runs with make lint");
  // Newest first, and the two arrived together: the higher id leads.
  tty.press("Enter");
  await tty.waitFor("forget it");
  tty.press("Down");
  tty.press("Enter");
  await tty.waitFor("Forgot memory 2: Ports below 1024 need root here");
  expect(contents()).toEqual(["The linter runs with make lint"]);

  tty.type("/memory");
  tty.press("Enter");
  await tty.waitFor("Memories (1)");
  tty.press("Enter");
  await tty.waitFor("edit it");
  tty.press("Enter");
  await tty.waitFor("/memory edit 1 The linter runs with make lint");
  tty.type(" --fix ghp_0123456789abcdefghij0123456789abcdef");
  tty.press("Enter");
  // A token typed into an edit is redacted as the model's retains are.
  await tty.waitFor("Memory 1 now reads: The linter runs with make lint --fix [REDACTED]");
  expect(contents()).toEqual(["The linter runs with make lint --fix [REDACTED]"]);

  tty.type("/memory view");
  tty.press("Enter");
  await tty.waitFor("<memories>");
  await tty.waitFor("- The linter runs with make lint --fix [REDACTED] (id: 1)");

  tty.type("/memory diagnose");
  tty.press("Enter");
  await tty.waitFor(/mnemopi\.db: the file and its search index are\s+sound\./);
  tty.type("/memory rebuild");
  tty.press("Enter");
  await tty.waitFor("Rebuilt the memory search index.");
  tty.type("/memory stats");
  tty.press("Enter");
  await tty.waitFor(/mnemopi\.db \(scoping per-project\) ·\s+\S+: 1\s+memory/);

  tty.type("/memory clear");
  tty.press("Enter");
  await tty.waitFor(/Delete all 1 memory of bank/);
  tty.press("Escape");
  await tty.waitFor("Nothing was deleted.");
  expect(contents()).toHaveLength(1);
  tty.type("/memory clear");
  tty.press("Enter");
  await tty.waitFor("Yes, delete them");
  tty.press("Down");
  tty.press("Enter");
  await tty.waitFor(/Deleted 1 memory of bank/);
  expect(contents()).toEqual([]);
});

test("a new session's first prompt brings the memories to the model; the transcript and /export show only what the user typed", async () => {
  const home = tempDir("omp-tty-home-");
  const cwd = tempDir("omp-tty-project-");
  MemoryStore.using(join(home, ".omp", "agent", "memories", "mnemopi", "mnemopi.db"), (store) =>
    store.add(projectBank(cwd), [{ content: "Deploys need the VPN up first", source: "retain", cwd }]),
  );
  const s = await ready({ home, cwd, script: [{ text: "Bring the VPN up, then deploy." }] });
  const { tty } = s;
  tty.type("how do I deploy");
  tty.press("Enter");
  await tty.waitFor("Bring the VPN up, then deploy.");
  const sent = JSON.stringify(s.standin.requests.filter((r) => r.method === "POST")[0]!.body);
  expect(sent).toContain("- Deploys need the VPN up first (id: 1)");
  expect(tty.screen()).not.toContain("memories");
  tty.type("/export notes.md");
  tty.press("Enter");
  await tty.waitFor("(Markdown)");
  const markdown = readFileSync(join(cwd, "notes.md"), "utf8");
  expect(markdown).toContain("## User\n\nhow do I deploy\n");
  expect(markdown).not.toContain("memories");
});
