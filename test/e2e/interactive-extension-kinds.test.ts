// The interactive mode (tmux) with hooks and a TypeScript extension: the extension's slash
// command completes after /, is in /help and sends its handler's text; /extensions lists the
// hook and the extension beside skills and commands.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeTree } from "../support/fixture-tree.ts";
import { tempDir } from "../support/omp.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

const homeWithCode = () =>
  writeTree(tempDir("omp-tty-home-"), {
    ".omp/agent/config.yml": "hooks:\n  PostToolUse:\n    - matcher: Edit|Write\n      hooks:\n        - type: command\n          command: ./format.sh\n",
    ".omp/agent/extensions/greeter.js": 'export default (api) => api.registerCommand("greet-all", { description: "Greets the whole team", handler: (args) => "GREET-BODY " + args });',
  });

describe("hooks and TypeScript extensions in the interactive mode", () => {
  test("an extension's command completes, is in /help and sends its handler's text; /extensions lists the hook and the extension", async () => {
    const s = await ready({ home: homeWithCode(), script: [{ text: "greeted them" }] });
    const { tty } = s;
    tty.type("/gree");
    await tty.waitFor("Greets the whole team");
    tty.press("C-u");
    await tty.waitFor((screen) => !screen.includes("Greets the whole team"));

    tty.type("/help");
    tty.press("Enter");
    const help = await tty.waitFor("Tips");
    expect(help).toMatch(/\/greet-all +Greets the whole team/);

    tty.type("/extensions");
    tty.press("Enter");
    const shown = await tty.waitFor("Extensions (1 loaded)");
    expect(shown).toMatch(/Hooks \(1 loaded\)/);
    expect(shown).toMatch(/PostToolUse Edit\|Write +user +~\/\.omp\/agent\/config\.yml → \.\/format\.sh/);
    expect(shown).toMatch(/greeter\.js +user +~\/\.omp\/agent\/extensions\/greeter\.js →\s+\/greet-all/);

    tty.type("/greet-all the team");
    tty.press("Enter");
    await tty.waitFor("greeted them");
    const posts = s.standin.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    const userText = posts[0]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text ?? "").join(""))).join("\n");
    expect(userText).toBe("GREET-BODY the team");
  });
});
