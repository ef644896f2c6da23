import { expect, test } from "bun:test";
import { Theme } from "../../../cli/interactive/render/theme.ts";
import { SelectList } from "../../../cli/interactive/widgets/select-list.ts";

const theme = new Theme("dark", "none");

test("a picker's labels and details from files cannot act on the terminal: escape sequences and controls removed, one line each", () => {
  const list = new SelectList("Resume", [
    { label: "fix the bug\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J", detail: "claude · 2h\nsecond line", value: 1 },
    { label: "plain", value: 2 },
  ]);
  const screen = list.render(100, 10, theme).join("\n");
  expect(screen).toContain("fix the bug");
  expect(screen).toContain("claude · 2h second line");
  expect(screen).not.toContain("\x1b]");
  expect(screen).not.toContain("\x1b[2J");
  expect(screen).not.toContain("pwned");
});
