import type { ApprovalDecision, ApprovalRequest } from "../../../core/tools/approval.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import { LineInput } from "./line-input.ts";
import { paint, sanitize, truncateText, wrapWithPrefix } from "../render/text.ts";
import { numberedChangeRows } from "../render/numbered-diff.ts";
import type { Theme } from "../render/theme.ts";

const CHOICES = ["Yes", "Yes, and don't ask again for {tool} in this session", "No, and tell the model why"] as const;

/** Rows the request's text may take before it scrolls (PgUp/PgDn); Ctrl+O gives it the screen. */
const TEXT_ROWS = 8;
/** Rows a file change may take before it scrolls (Ctrl+O: the screen's height). */
const CHANGE_ROWS = 16;

/**
 * "May the agent run this?" in place of the editor: allow once, allow the tool for the rest of
 * the session, or deny with an optional reason the model gets to read.
 */
export class ApprovalPrompt {
  private stage: "choose" | "reason" = "choose";
  private selected = 0;
  /** The first row of the request's text in view, when it is longer than the view. */
  private scroll = 0;
  /** Ctrl+O: the request's text takes every row the screen has. */
  private expanded = false;
  /** Rows of the view at the last render, for PgUp/PgDn. */
  private viewRows = TEXT_ROWS;
  private readonly reason = new LineInput();

  constructor(
    readonly request: ApprovalRequest,
    private readonly answer: (decision: ApprovalDecision) => void,
  ) {}

  /** True once answered. */
  handleKey(key: Key): boolean {
    const id = keyId(key);
    if (this.stage === "reason") {
      if (id === "enter") return this.decide({ allow: false, ...(this.reason.text ? { reason: this.reason.text } : {}) });
      if (id === "escape" || id === "ctrl+c") return this.decide({ allow: false });
      this.reason.handleKey(key, id);
      return false;
    }
    switch (id) {
      case "pageup":
        this.scroll = Math.max(0, this.scroll - Math.max(1, this.viewRows - 1));
        return false;
      case "pagedown":
        this.scroll += Math.max(1, this.viewRows - 1);
        return false;
      case "up":
        this.selected = (this.selected + CHOICES.length - 1) % CHOICES.length;
        return false;
      case "down":
      case "tab":
        this.selected = (this.selected + 1) % CHOICES.length;
        return false;
      case "1":
      case "y":
        return this.decide({ allow: true });
      case "2":
      case "a":
        return this.decide({ allow: true, remember: true });
      case "3":
      case "n":
        this.stage = "reason";
        return false;
      case "escape":
      case "ctrl+c":
        return this.decide({ allow: false });
      case "enter":
        if (this.selected === 0) return this.decide({ allow: true });
        if (this.selected === 1) return this.decide({ allow: true, remember: true });
        this.stage = "reason";
        return false;
    }
    return false;
  }

  expand(on: boolean): void {
    this.expanded = on;
  }

  /** Pasted text goes into the reason. */
  paste(text: string): void {
    if (this.stage === "reason") this.reason.paste(text);
  }

  private decide(decision: ApprovalDecision): true {
    this.answer(decision);
    return true;
  }

  /** `room`: the rows the screen has for the request's text. */
  render(width: number, theme: Theme, room = TEXT_ROWS): { rows: string[]; cursor?: { row: number; col: number } } {
    const { toolName, summary, changes } = this.request;
    const bar = [{ text: "┃ ", style: theme.fg("warning") }];
    // The whole text, wrapped: what is cut off is what would run unseen; a long one scrolls.
    const text = wrapWithPrefix(
      [
        { text: this.request.kind === "sandbox" ? "Run outside the sandbox? " : `Allow ${toolName}? `, style: theme.fg("warning", "bold") },
        { text: sanitize(summary), style: theme.fg(null, "bold") },
      ],
      width,
      bar,
    );
    // The exact change, numbered −/+ lines: what the user agrees to is what gets written.
    if (changes) text.push(...numberedChangeRows(changes, width - 2, theme).map((row) => paint("┃ ", theme.fg("warning")) + row));
    const fits = Math.max(TEXT_ROWS, room);
    const view = this.expanded ? fits : Math.min(fits, changes ? CHANGE_ROWS : TEXT_ROWS);
    this.viewRows = view;
    this.scroll = Math.min(this.scroll, Math.max(0, text.length - view));
    const rows = text.slice(this.scroll, this.scroll + view);
    if (text.length > view) {
      const shown = `rows ${this.scroll + 1}-${this.scroll + rows.length} of ${text.length}`;
      const keys = view < fits ? "PgUp/PgDn scrolls, ctrl+o shows more" : "PgUp/PgDn scrolls";
      rows.push(paint(truncateText(`⚠ longer than the view (${shown}): ${keys}`, width), theme.fg("warning")));
    }
    if (this.stage === "reason") {
      rows.push(paint(truncateText("Why not? The model reads this. Enter sends, empty for no reason, Esc skips.", width), theme.fg("muted")));
      const line = this.reason.render(width, theme);
      rows.push(line.row);
      return { rows, cursor: { row: rows.length - 1, col: line.col } };
    }
    CHOICES.forEach((label, index) => {
      // Remembered apart from the same tool's calls inside the project (see ApprovalGate).
      const choice = `${index + 1}. ${label.replace("{tool}", this.request.rememberAs ?? (this.request.outside ? `${toolName} outside the project` : toolName))}`;
      const line = truncateText(choice, width - 4);
      rows.push(index === this.selected ? paint(`› ${line}`, theme.fg("accent", "bold")) : `  ${line}`);
    });
    rows.push(paint(truncateText(`y yes · a always · n no, say why · esc deny and stop${changes ? " · ctrl+o expand" : ""}`, width), theme.fg("dim")));
    return { rows };
  }
}
