import type { ApprovalDecision, ApprovalRequest } from "../../../core/tools/approval.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import { LineInput } from "./line-input.ts";
import { PromptEditor } from "./prompt-editor.ts";
import { paint, truncateText, wrapWithPrefix } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import { numberedChangeRows } from "../render/numbered-diff.ts";
import type { Theme } from "../render/theme.ts";

const CHOICES = ["Yes", "Yes, and don't ask again for {tool} {scope}", "No, and tell the model why"] as const;
/** For a change to one file: the user's own version of it, accepted. */
const EDIT = "Edit it first, then accept";
/** Rows the editor of a change takes. */
const EDIT_ROWS = 14;

/** Rows the request's text may take before it scrolls (PgUp/PgDn); Ctrl+O gives it the screen. */
const TEXT_ROWS = 8;
/** Rows a file change may take before it scrolls (Ctrl+O: the screen's height). */
const CHANGE_ROWS = 16;

/**
 * "May the agent run this?" in place of the editor: allow once, allow the tool for the rest of
 * the session, or deny with an optional reason the model gets to read.
 */
export class ApprovalPrompt {
  private stage: "choose" | "reason" | "edit" = "choose";
  /** The change's new text, as the user edits it. */
  private editor: PromptEditor | undefined;
  /** The theme of the last frame, for the editor. */
  private theme: Theme | undefined;
  private selected = 0;
  /** The first row of the request's text in view, when it is longer than the view. */
  private scroll = 0;
  /** Ctrl+O: the request's text takes every row the screen has. */
  private expanded = false;
  /** Rows of the view at the last render, for PgUp/PgDn. */
  private viewRows = TEXT_ROWS;
  private laidOut: { width: number; theme: Theme; rows: string[] } | undefined;
  private readonly reason = new LineInput();

  constructor(
    readonly request: ApprovalRequest,
    private readonly answer: (decision: ApprovalDecision) => void,
  ) {}

  /** The choices: a change to one file may also be edited before it is accepted. */
  private get choices(): readonly string[] {
    return this.editable === undefined ? CHOICES : [...CHOICES, EDIT];
  }

  /** The new text of the one file the call changes, when it may be edited first. */
  private get editable(): string | undefined {
    const changes = this.request.changes;
    return changes?.length === 1 && changes[0]!.newText !== null ? changes[0]!.newText : undefined;
  }

  private edit(): false {
    this.stage = "edit";
    this.editor = new PromptEditor(this.theme!, () => []);
    this.editor.setText(this.editable ?? "");
    return false;
  }

  /** True once answered. */
  handleKey(key: Key): boolean {
    const id = keyId(key);
    if (this.stage === "edit") {
      if (id === "escape") this.stage = "choose";
      else if (this.editor!.handleKey(key) === "submit") return this.decide({ allow: true, edited: this.editor!.text });
      return false;
    }
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
        this.selected = (this.selected + this.choices.length - 1) % this.choices.length;
        return false;
      case "down":
      case "tab":
        this.selected = (this.selected + 1) % this.choices.length;
        return false;
      case "4":
      case "e":
        return this.editable === undefined ? false : this.edit();
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
        if (this.selected === 3) return this.edit();
        this.stage = "reason";
        return false;
    }
    return false;
  }

  expand(on: boolean): void {
    this.expanded = on;
  }

  /** Pasted text goes into the reason, or the change being edited. */
  paste(text: string): void {
    if (this.stage === "reason") this.reason.paste(text);
    if (this.stage === "edit") this.editor!.buffer.insert(text.replace(/\r\n?/g, "\n"));
  }

  private decide(decision: ApprovalDecision): true {
    this.answer(decision);
    return true;
  }

  /**
   * The whole text, wrapped: what is cut off is what would run unseen; a long one scrolls. Kept
   * while the width and theme stay: a big change's diff is not laid out again at every frame.
   */
  private textRows(width: number, theme: Theme): string[] {
    if (this.laidOut?.width === width && this.laidOut.theme === theme) return this.laidOut.rows;
    const { toolName, summary, changes } = this.request;
    const bar = [{ text: "┃ ", style: theme.fg("warning") }];
    const rows = wrapWithPrefix(
      [
        { text: this.request.kind === "sandbox" ? "Run outside the sandbox? " : `Allow ${toolName}? `, style: theme.fg("warning", "bold") },
        { text: sanitize(summary), style: theme.fg(null, "bold") },
      ],
      width,
      bar,
    );
    // The exact change, numbered −/+ lines: what the user agrees to is what gets written.
    if (changes) rows.push(...numberedChangeRows(changes, width - 2, theme).map((row) => paint("┃ ", theme.fg("warning")) + row));
    this.laidOut = { width, theme, rows };
    return rows;
  }

  /** `room`: the rows the screen has for the request's text. */
  render(width: number, theme: Theme, room = TEXT_ROWS): { rows: string[]; cursor?: { row: number; col: number } } {
    this.theme = theme;
    if (this.stage === "edit") {
      const drawn = this.editor!.render(width, Math.max(4, Math.min(EDIT_ROWS, room)), "", "prompt");
      const title = paint(truncateText(`Edit ${this.request.changes![0]!.shown} · enter accepts your version · shift+enter new line · esc back`, width), theme.fg("warning", "bold"));
      return { rows: [title, ...drawn.rows], cursor: { row: drawn.cursor.row + 1, col: drawn.cursor.col } };
    }
    const { toolName, changes } = this.request;
    const text = this.textRows(width, theme);
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
    this.choices.forEach((label, index) => {
      // Remembered apart from the same tool's calls inside the project (see ApprovalGate).
      const scope = this.request.rememberFor === "project" ? "in this project" : "in this session";
      const choice = `${index + 1}. ${label.replace("{tool}", this.request.rememberAs ?? (this.request.outside ? `${toolName} outside the project` : toolName)).replace("{scope}", scope)}`;
      const line = truncateText(choice, width - 4);
      rows.push(index === this.selected ? paint(`› ${line}`, theme.fg("accent", "bold")) : `  ${line}`);
    });
    rows.push(paint(truncateText(`y yes · a always · n no, say why${this.editable === undefined ? "" : " · e edit first"} · esc deny and stop${changes ? " · ctrl+o expand" : ""}`, width), theme.fg("dim")));
    return { rows };
  }
}
