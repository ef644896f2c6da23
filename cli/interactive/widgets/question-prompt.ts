import type { HostOwnEvent } from "../../../core/session-host/protocol.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import { LineInput } from "./line-input.ts";
import { PromptEditor } from "./prompt-editor.ts";
import { paint, truncateText, wrapWithPrefix } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

export type QuestionEvent = Extract<HostOwnEvent, { type: "question_request" }>;

/** Rows a plan may take before it scrolls (PgUp/PgDn). */
const PLAN_ROWS = 14;
const OTHER = "Other: type an answer";
/** A plan's own extra choice: the plan in an editor, approved as edited. */
const EDIT = "Edit the plan, then approve it";

/** The answers, and a plan as the user edited it. */
export interface QuestionReply {
  answers: string[][];
  plan?: string;
}

/**
 * The ask tool's questions (and plan mode's plan) in place of the editor, one question at a
 * time: arrows and digits choose, Space ticks when several may be chosen, "Other" takes the
 * user's own words, Esc leaves them for later. Answers undefined when dismissed. A plan may also
 * be edited in place (Enter approves the edited plan, Shift+Enter starts a new line).
 */
export class QuestionPrompt {
  private index = 0;
  private selected = 0;
  private ticked = new Set<number>();
  private typing: LineInput | undefined;
  private scroll = 0;
  private readonly answers: string[][] = [];
  private editing: PromptEditor | undefined;
  /** The theme of the last frame, for the plan's editor. */
  private theme: Theme | undefined;

  constructor(
    readonly request: QuestionEvent,
    private readonly answer: (reply: QuestionReply | undefined) => void,
  ) {
    if (this.options.length === 0) this.typing = new LineInput();
  }

  private get question() {
    return this.request.questions[this.index]!;
  }

  /** The question's options (and a plan's "Edit"), then "Other"; none for a free-text question. */
  private get options(): string[] {
    const options = this.question.options ?? [];
    const edit = this.request.kind === "plan" && this.request.plan !== undefined ? [EDIT] : [];
    return options.length > 0 ? [...options, ...edit, OTHER] : [];
  }

  /** True once answered or dismissed. */
  handleKey(key: Key): boolean {
    const id = keyId(key);
    if (this.editing) {
      if (id === "escape") this.editing = undefined;
      else if (this.editing.handleKey(key) === "submit") return this.done({ answers: [[this.question.options![0]!]], plan: this.editing.text });
      return false;
    }
    if (id === "escape" || id === "ctrl+c") {
      if (this.typing && this.options.length > 0) {
        this.typing = undefined;
        return false;
      }
      return this.done(undefined);
    }
    if (this.typing) {
      if (id === "enter") return this.typing.text ? this.next([this.typing.text]) : false;
      this.typing.handleKey(key, id);
      return false;
    }
    const count = this.options.length;
    const digit = /^[1-9]$/.test(id) ? Number(id) - 1 : -1;
    if (digit >= 0 && digit < count) {
      this.selected = digit;
      return this.question.multiple && digit < count - 1 ? (this.toggle(digit), false) : this.choose();
    }
    switch (id) {
      case "up":
        this.selected = (this.selected + count - 1) % count;
        return false;
      case "down":
      case "tab":
        this.selected = (this.selected + 1) % count;
        return false;
      case "pageup":
        this.scroll = Math.max(0, this.scroll - (PLAN_ROWS - 1));
        return false;
      case "pagedown":
        this.scroll += PLAN_ROWS - 1;
        return false;
      case " ":
        if (this.question.multiple && this.selected < count - 1) this.toggle(this.selected);
        return false;
      case "enter":
        return this.choose();
    }
    return false;
  }

  paste(text: string): void {
    if (this.editing) this.editing.buffer.insert(text.replace(/\r\n?/g, "\n"));
    else this.typing?.paste(text);
  }

  /** Nobody waits for the answer any more (the host's timeout). */
  dismiss(): void {
    this.done(undefined);
  }

  private done(reply: QuestionReply | undefined): true {
    this.answer(reply);
    return true;
  }

  private toggle(option: number): void {
    if (!this.ticked.delete(option)) this.ticked.add(option);
  }

  private choose(): boolean {
    const options = this.options;
    if (this.selected === options.length - 1) {
      this.typing = new LineInput();
      return false;
    }
    if (options[this.selected] === EDIT) {
      this.editing = new PromptEditor(this.theme!, () => []);
      this.editing.setText(this.request.plan ?? "");
      return false;
    }
    if (this.question.multiple) {
      const chosen = [...this.ticked].sort((a, b) => a - b).map((i) => options[i]!);
      return this.next(chosen.length > 0 ? chosen : [options[this.selected]!]);
    }
    return this.next([options[this.selected]!]);
  }

  private next(answer: string[]): boolean {
    this.answers.push(answer);
    this.index++;
    if (this.index >= this.request.questions.length) return this.done({ answers: this.answers });
    this.selected = 0;
    this.ticked = new Set();
    this.typing = this.options.length === 0 ? new LineInput() : undefined;
    return false;
  }

  render(width: number, theme: Theme): { rows: string[]; cursor?: { row: number; col: number } } {
    this.theme = theme;
    if (this.editing) {
      const drawn = this.editing.render(width, PLAN_ROWS, "", "prompt");
      const title = paint("Edit the plan · enter approves it · shift+enter new line · esc back", theme.fg("accent", "bold"));
      return { rows: [title, ...drawn.rows], cursor: { row: drawn.cursor.row + 1, col: drawn.cursor.col } };
    }
    const rows: string[] = [];
    const bar = [{ text: "┃ ", style: theme.fg("accent") }];
    if (this.request.kind === "plan" && this.request.plan) {
      const plan = this.request.plan.split("\n").flatMap((line) => wrapWithPrefix([{ text: sanitize(line), style: theme.fg(null) }], width, bar));
      this.scroll = Math.min(this.scroll, Math.max(0, plan.length - PLAN_ROWS));
      rows.push(paint("Plan", theme.fg("accent", "bold")), ...plan.slice(this.scroll, this.scroll + PLAN_ROWS));
      if (plan.length > PLAN_ROWS) rows.push(paint(truncateText(`rows ${this.scroll + 1}-${Math.min(plan.length, this.scroll + PLAN_ROWS)} of ${plan.length}: PgUp/PgDn scrolls`, width), theme.fg("dim")));
    }
    const of = this.request.questions.length > 1 ? ` (${this.index + 1}/${this.request.questions.length})` : "";
    rows.push(...wrapWithPrefix([{ text: `${sanitize(this.question.question)}${of}`, style: theme.fg("accent", "bold") }], width, bar));
    this.options.forEach((label, index) => {
      const tick = this.question.multiple && index < this.options.length - 1 ? (this.ticked.has(index) ? "[x] " : "[ ] ") : "";
      const line = truncateText(`${index + 1}. ${tick}${sanitize(label)}`, width - 4);
      rows.push(index === this.selected && !this.typing ? paint(`› ${line}`, theme.fg("accent", "bold")) : `  ${line}`);
    });
    if (this.typing) {
      const line = this.typing.render(width, theme);
      rows.push(line.row, paint(this.request.kind === "plan" ? "Enter sends your feedback on the plan · esc back" : "Enter answers · esc to answer later", theme.fg("dim")));
      return { rows, cursor: { row: rows.length - 2, col: line.col } };
    }
    const keys = this.question.multiple ? "space ticks · enter confirms" : "enter chooses";
    rows.push(paint(`↑↓ or digits · ${keys} · esc to answer later`, theme.fg("dim")));
    return { rows };
  }
}
