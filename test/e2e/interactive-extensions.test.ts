// Skills and markdown commands in the interactive mode, through a real terminal (tmux): they
// complete after /, /help lists them, running one sends its expanded prompt, and /extensions shows
// what was loaded and skipped.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/omp.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);

const ready = readySessions();

function homeWithExtensions(): string {
  const home = tempDir("omp-tty-home-");
  const files: Record<string, string> = {
    ".omp/agent/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Extract tables from PDF files\n---\nPDF-BODY: run pdftotext.\n",
    ".omp/agent/commands/review.md": "---\ndescription: Review a file closely\nargument-hint: <file>\n---\nPlease review $1 for bugs.\n",
    ".claude/commands/git/st.md": "---\ndescription: Show the status\n---\nSTATUS-BODY $ARGUMENTS\n",
    ".claude/skills/broken/notes.txt": "not a skill\n",
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), content);
  }
  return home;
}

describe("skills and commands in the interactive mode", () => {
  test("/ completes commands and skills; /help lists them; a command and a skill send their expanded prompts", async () => {
    const s = await ready({ home: homeWithExtensions(), script: [{ text: "reviewed it" }, { text: "used the skill" }] });
    const { tty } = s;
    tty.type("/re");
    const list = await tty.waitFor("Review a file closely");
    expect(list).toContain("/review <file>");
    expect(list).toContain("/resume");
    tty.press("C-u");
    await tty.waitFor((screen) => !screen.includes("Review a file closely"));
    tty.type("/skill:");
    await tty.waitFor("Extract tables from PDF files");
    expect(tty.screen()).toContain("/skill:pdf [request]");
    tty.press("C-u");

    tty.type("/help");
    tty.press("Enter");
    const help = await tty.waitFor("Tips");
    expect(help).toContain("Your commands");
    expect(help).toMatch(/\/git:st +Show the status/);
    expect(help).toMatch(/\/skill:pdf \[request\] +Extract tables from PDF files/);

    tty.type("/review src/app.ts");
    tty.press("Enter");
    await tty.waitFor("reviewed it");
    await tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    tty.type("/skill:pdf get page 2");
    tty.press("Enter");
    await tty.waitFor("used the skill");
    const posts = s.standin.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(2);
    const userText = (body: any) => body.messages.filter((m: any) => m.role === "user").map((m: any) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text ?? "").join(""))).join("\n");
    expect(userText(posts[0]!.body)).toBe("Please review src/app.ts for bugs.");
    expect(userText(posts[1]!.body)).toContain("PDF-BODY: run pdftotext.");
    expect(userText(posts[1]!.body)).toMatch(/get page 2$/);
    // The model saw the skill listed, with the tool to load it.
    expect(JSON.stringify(posts[0]!.body.system)).toContain("- pdf: Extract tables from PDF files");
    expect(posts[0]!.body.tools.map((t: any) => t.name)).toContain("skill");
  });

  test("/extensions lists what was loaded and what was skipped, and the skip was reported once", async () => {
    const s = await ready({ home: homeWithExtensions() });
    const { tty } = s;
    tty.type("/extensions");
    tty.press("Enter");
    const shown = await tty.waitFor("Commands (2 loaded)");
    expect(shown).toMatch(/Skills \(1 loaded, 1 skipped\)/);
    expect(shown).toMatch(/✗ broken +user +~\/\.claude\/skills\/broken — no SKILL\.md in this folder/);
    expect(shown).toMatch(/\/review +user +~\/\.omp\/agent\/commands\/review\.md/);
    const reports = tty.history().split("\n").filter((line) => line.includes("~/.claude/skills/broken: no SKILL.md in this folder"));
    expect(reports).toHaveLength(1);
  });
});
