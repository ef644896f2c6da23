import type { HostOwnEvent } from "../../../core/session-host/protocol.ts";
import { type Key, keyId } from "../terminal/keys.ts";
import { LineInput } from "./line-input.ts";
import { PromptEditor } from "./prompt-editor.ts";
import { paint, truncateLine, truncateText, wrapWithPrefix } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import { MarkdownStream } from "../render/markdown.ts";
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
 * user's own words, Esc leaves them for later. Several questions get tabs: ←/→ go back and forth,
 * and a review of every answer comes before they are sent (as Claude Code does). Answers undefined
 * when dismissed. A plan shows as Markdown and may also be edited in place (Enter approves the
 * edited plan, Shift+Enter starts a new line).
 */
export class QuestionPrompt {
  private index = 0;
  private selected = 0;
  private ticked = new Set<number>();
  private typing: LineInput | undefined;
  private scroll = 0;
  /** Per question, its answer once given (a later visit may change it). */
  private readonly answers: (string[] | undefined)[] = [];
  /** On the review step, after the last question. */
  private reviewing = false;
  /** The plan as Markdown rows, per width. */
  private planRows: { width: number; rows: string[] } | undefined;
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
    if (this.reviewing) {
      if (id === "left") this.visit(this.request.questions.length - 1);
      else if (/^[1-9]$/.test(id) && Number(id) <= this.request.questions.length) this.visit(Number(id) - 1);
      else if (id === "enter") {
        const missing = this.answers.findIndex((answer, i) => i < this.request.questions.length && answer === undefined);
        const first = missing === -1 && this.answers.length < this.request.questions.length ? this.answers.length : missing;
        if (first !== -1) this.visit(first);
        else return this.done({ answers: this.answers.map((answer) => answer ?? []) });
      }
      return false;
    }
    if (this.tabbed && (id === "left" || id === "right") && (!this.typing || this.typing.text === "")) {
      if (id === "left" && this.index > 0) this.visit(this.index - 1);
      else if (id === "right") this.index + 1 < this.request.questions.length ? this.visit(this.index + 1) : this.review();
      return false;
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

  /** Several questions of the ask tool: tabs, going back, and a review before sending. */
  private get tabbed(): boolean {
    return this.request.kind === "ask" && this.request.questions.length > 1;
  }

  private next(answer: string[]): boolean {
    this.answers[this.index] = answer;
    if (!this.tabbed) return this.done({ answers: this.answers.map((given) => given ?? []) });
    if (this.index + 1 < this.request.questions.length) this.visit(this.index + 1);
    else this.review();
    return false;
  }

  /** Shows question `index`, with its earlier answer chosen again. */
  private visit(index: number): void {
    this.reviewing = false;
    this.index = index;
    const given = this.answers[index] ?? [];
    const options = this.options;
    const chosen = given.map((answer) => options.indexOf(answer)).filter((i) => i >= 0);
    this.ticked = this.question.multiple ? new Set(chosen) : new Set();
    this.selected = chosen[0] ?? 0;
    const own = given.length > 0 && chosen.length === 0 ? given[0] : undefined;
    this.typing = options.length === 0 || own !== undefined ? new LineInput() : undefined;
    if (own !== undefined) this.typing!.paste(own);
  }

  private review(): void {
    this.reviewing = true;
    this.typing = undefined;
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
    if (this.tabbed) rows.push(this.tabs(width, theme));
    if (this.reviewing) return { rows: [...rows, ...this.reviewRows(width, theme)] };
    if (this.request.kind === "plan" && this.request.plan) {
      // The plan as the Markdown it is: headings, lists, code, not its raw marks.
      if (this.planRows?.width !== width) {
        const markdown = new MarkdownStream(theme);
        markdown.append(this.request.plan);
        markdown.finish();
        this.planRows = { width, rows: markdown.render(Math.max(1, width - 2)).rows.map((row) => paint("┃ ", theme.fg("accent")) + row) };
      }
      const plan = this.planRows.rows;
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
      const description = this.question.descriptions?.[index];
      if (description) rows.push(...wrapWithPrefix([{ text: sanitize(description), style: theme.fg("muted") }], width, [{ text: "     ", style: "" }]));
    });
    if (this.typing) {
      const line = this.typing.render(width, theme);
      rows.push(line.row, paint(this.request.kind === "plan" ? "Enter sends your feedback on the plan · esc back" : "Enter answers · esc to answer later", theme.fg("dim")));
      return { rows, cursor: { row: rows.length - 2, col: line.col } };
    }
    const keys = this.question.multiple ? "space ticks · enter confirms" : "enter chooses";
    rows.push(paint(truncateText(`↑↓ or digits · ${keys}${this.tabbed ? " · ←→ questions" : ""} · esc to answer later`, width), theme.fg("dim")));
    return { rows };
  }

  /** One tab per question (✓ once answered), then the review; the current one stands out. */
  private tabs(width: number, theme: Theme): string {
    const labels = this.request.questions.map((question, i) => `${this.answers[i] ? "✓" : "☐"} ${sanitize(question.header ?? `Q${i + 1}`)}`);
    const parts = [...labels, "Review"].map((label, i) => {
      const current = this.reviewing ? i === labels.length : i === this.index;
      return current ? paint(` ${label} `, `${theme.selected()};${theme.fg("accent", "bold")}`) : paint(` ${label} `, theme.fg("muted"));
    });
    return truncateLine(`${paint("← ", theme.fg("dim"))}${parts.join(" ")}${paint(" →", theme.fg("dim"))}`, width);
  }

  private reviewRows(width: number, theme: Theme): string[] {
    const rows = [paint("Review your answers", theme.fg("accent", "bold"))];
    this.request.questions.forEach((question, i) => {
      const answer = this.answers[i];
      rows.push(...wrapWithPrefix([{ text: `${i + 1}. ${sanitize(question.question)}`, style: theme.fg(null, "bold") }], width, []));
      rows.push(...wrapWithPrefix([{ text: answer ? sanitize(answer.join("; ")) : "(not answered yet)", style: answer ? theme.fg("success") : theme.fg("warning") }], width, [{ text: "   → ", style: theme.fg("dim") }]));
    });
    const complete = this.request.questions.every((_, i) => this.answers[i] !== undefined);
    rows.push(paint(truncateText(`${complete ? "enter submits" : "enter goes to the unanswered one"} · ← or a digit changes an answer · esc to answer later`, width), theme.fg("dim")));
    return rows;
  }
}
