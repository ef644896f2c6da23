import type { AssistantDelta } from "../../../core/agent/events.ts";
import type { AssistantMessage } from "../../../core/ai/messages.ts";
import { MarkdownStream } from "./markdown.ts";
import type { Block } from "./transcript.ts";
import { type Span, paint, spansToString, truncateText, visibleWidth, wrapSpans, wrapWithPrefix } from "./text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "./theme.ts";

/** What every block reads when it renders: the theme and the user's display toggles. */
export interface View {
  theme: Theme;
  /** Ctrl+T: thinking in full instead of one line. */
  showThinking: boolean;
  /** Ctrl+O: tool results in full instead of their tail. */
  expandTools: boolean;
  /** Advances while something runs; spinners pick their frame from it. */
  tick: number;
}

/** Rows of a long user message shown while collapsed. */
const USER_ROWS = 8;

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Renders once per width and display state; `version` invalidates it. */
abstract class CachedBlock implements Block {
  protected version = 0;
  private cache: { key: string; rows: string[] } | undefined;

  constructor(protected readonly view: View) {}

  abstract readonly done: boolean;
  protected abstract draw(width: number): string[];

  protected cacheKey(width: number): string {
    return `${width}|${this.version}|${this.view.showThinking}|${this.view.expandTools}|${this.view.theme.appearance}`;
  }

  render(width: number): string[] {
    const key = this.cacheKey(width);
    if (this.cache?.key !== key) this.cache = { key, rows: this.draw(width) };
    return this.cache.rows;
  }

  stableRows(width: number): number {
    return this.done ? this.render(width).length : 0;
  }

  protected changed(): void {
    this.version++;
  }
}

/** Fixed rows: messages from omp itself, command output, the welcome line. */
export class NoticeBlock extends CachedBlock {
  readonly done = true;

  constructor(
    view: View,
    private readonly content: (width: number, theme: Theme) => string[],
    private readonly spaced = true,
  ) {
    super(view);
  }

  protected draw(width: number): string[] {
    const rows = this.content(width, this.view.theme);
    return this.spaced ? ["", ...rows] : rows;
  }
}

export type NoticeKind = "info" | "warning" | "error" | "success";

/** A one-paragraph notice with a coloured mark: `! could not ...`. */
export function notice(view: View, kind: NoticeKind, text: string): NoticeBlock {
  return new NoticeBlock(view, (width, theme) => {
    const mark = { info: ["·", "muted"], warning: ["!", "warning"], error: ["✗", "error"], success: ["✓", "success"] } as const;
    const [glyph, color] = mark[kind];
    const style = kind === "info" ? theme.fg("muted") : theme.fg(color);
    return wrapWithPrefix([{ text: sanitize(text).replace(/\s*\n\s*/g, " "), style }], width, [{ text: `${glyph} `, style: theme.fg(color, "bold") }], [{ text: "  ", style: "" }]);
  });
}

/**
 * Preformatted lines (help, hotkeys, session info), each wrapped on its own. A line whose first
 * span is a padded column (`  /model [name]     `) wraps under its second column.
 */
export function textBlock(view: View, lines: (theme: Theme) => Span[][]): NoticeBlock {
  return new NoticeBlock(view, (width, theme) =>
    lines(theme).flatMap((spans) => {
      const [first, ...rest] = spans;
      const column = first && rest.length > 0 && first.text.endsWith(" ") ? visibleWidth(first.text) : 0;
      if (column > 0 && width - column >= 20) return wrapWithPrefix(rest, width, [first!], [{ text: " ".repeat(column), style: "" }]);
      return wrapSpans(spans, width).map(spansToString);
    }),
  );
}

/** A message the user sent (typed, queued, or from a resumed session). */
export class UserBlock extends CachedBlock {
  readonly done = true;

  constructor(
    view: View,
    private readonly text: string,
    private readonly label?: string,
  ) {
    super(view);
  }

  protected draw(width: number): string[] {
    const { theme } = this.view;
    const marker = [{ text: "❯ ", style: theme.fg("prompt", "bold") }];
    const body: Span[] = [{ text: sanitizeMultiline(this.text), style: theme.fg(null, "bold") }];
    if (this.label) body.push({ text: `  ${this.label}`, style: theme.fg("dim") });
    const rows = wrapWithPrefix(body, width, marker, [{ text: "  ", style: "" }]);
    // A long paste would fill the screen: its head stands for it unless expanded (Ctrl+O).
    if (this.view.expandTools || rows.length <= USER_ROWS + 2) return ["", ...rows];
    const more = paint(`  … ${rows.length - USER_ROWS} more lines (ctrl+o to expand)`, theme.fg("dim"));
    return ["", ...rows.slice(0, USER_ROWS), more];
  }
}

function sanitizeMultiline(text: string): string {
  return text.split("\n").map(sanitize).join("\n");
}

type Part =
  | { kind: "text"; markdown: MarkdownStream }
  | { kind: "thinking"; markdown: MarkdownStream; started: number; ended?: number };

/**
 * The assistant's reply as it streams: thinking (one dim line, or in full with Ctrl+T) and the
 * answer as markdown. Tool calls get their own blocks after it.
 */
export class AssistantBlock extends CachedBlock {
  done = false;
  private readonly parts = new Map<number, Part>();
  private ending: string[] = [];

  constructor(view: View) {
    super(view);
  }

  get text(): string {
    return [...this.parts.values()]
      .filter((p) => p.kind === "text")
      .map((p) => p.markdown.text)
      .join("\n\n");
  }

  protected override cacheKey(width: number): string {
    const thinking = [...this.parts.values()].some((p) => p.kind === "thinking" && p.ended === undefined);
    return `${super.cacheKey(width)}|${thinking ? this.view.tick : ""}`;
  }

  apply(delta: AssistantDelta): void {
    switch (delta.type) {
      case "text_start":
        this.parts.set(delta.contentIndex, { kind: "text", markdown: new MarkdownStream(this.view.theme) });
        break;
      case "thinking_start":
        this.parts.set(delta.contentIndex, { kind: "thinking", markdown: new MarkdownStream(this.view.theme, this.view.theme.fg("thinking", "italic")), started: Date.now() });
        break;
      case "text_delta":
      case "thinking_delta": {
        let part = this.parts.get(delta.contentIndex);
        if (!part) {
          this.apply({ type: delta.type === "text_delta" ? "text_start" : "thinking_start", contentIndex: delta.contentIndex });
          part = this.parts.get(delta.contentIndex)!;
        }
        part.markdown.append(delta.delta);
        break;
      }
      case "thinking_end": {
        const part = this.parts.get(delta.contentIndex);
        if (part?.kind === "thinking") {
          part.ended = Date.now();
          part.markdown.finish();
        }
        break;
      }
      case "text_end":
        this.parts.get(delta.contentIndex)?.markdown.finish();
        break;
      default:
        return;
    }
    this.changed();
  }

  /** The final message: fills in what did not stream (a non-streaming provider) and notes errors and aborts. */
  finish(message: AssistantMessage): void {
    message.content.forEach((part, index) => {
      if (this.parts.has(index)) return;
      if (part.type === "text" && part.text !== "") {
        const markdown = new MarkdownStream(this.view.theme);
        markdown.append(part.text);
        this.parts.set(index, { kind: "text", markdown });
      } else if (part.type === "thinking" && part.thinking !== "") {
        const markdown = new MarkdownStream(this.view.theme, this.view.theme.fg("thinking", "italic"));
        markdown.append(part.thinking);
        this.parts.set(index, { kind: "thinking", markdown, started: message.timestamp, ended: message.timestamp });
      }
    });
    for (const part of this.parts.values()) {
      part.markdown.finish();
      if (part.kind === "thinking") part.ended ??= Date.now();
    }
    const { theme } = this.view;
    if (message.stopReason === "aborted") this.ending = [paint("⏹ Interrupted", theme.fg("warning"))];
    else if (message.stopReason === "error") this.ending = [paint(`✗ ${sanitize(message.errorMessage ?? "the request failed")}`, theme.fg("error"))];
    else if (message.stopReason === "length") this.ending = [paint("! The reply hit the model's output limit.", theme.fg("warning"))];
    this.done = true;
    this.changed();
  }

  override stableRows(width: number): number {
    if (this.done) return this.render(width).length;
    // Parts before the last one are complete; of the last one, what its markdown says is stable.
    const ordered = [...this.parts.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    const last = ordered[ordered.length - 1];
    if (!last) return 0;
    const rows = this.render(width);
    const lastRows = this.partRows(last, width);
    const lastStable = last.kind === "text" || this.view.showThinking ? last.markdown.render(width - 2).stable : 0;
    return Math.max(0, rows.length - lastRows.length + lastStable);
  }

  protected draw(width: number): string[] {
    const ordered = [...this.parts.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    const rows: string[] = [];
    for (const part of ordered) {
      const partRows = this.partRows(part, width);
      if (partRows.length === 0) continue;
      rows.push("", ...partRows);
    }
    for (const line of this.ending) rows.push("", `  ${line}`);
    return rows;
  }

  private partRows(part: Part, width: number): string[] {
    const { theme } = this.view;
    if (part.kind === "text") {
      const { rows } = part.markdown.render(width - 2);
      return rows.map((row, i) => (i === 0 ? paint("● ", theme.fg("accent", "bold")) : "  ") + row);
    }
    const mark = paint("∴ ", theme.fg("thinking"));
    if (this.view.showThinking) {
      return part.markdown.render(width - 2).rows.map((row, i) => (i === 0 ? mark : "  ") + row);
    }
    // Collapsed: always exactly one row, so the rows below never shift when thinking ends.
    if (part.ended === undefined) {
      const lines = part.markdown.text.trim().split("\n");
      const last = sanitize(lines[lines.length - 1] ?? "");
      const head = `Thinking${".".repeat((this.view.tick % 3) + 1)} `;
      return [mark + paint(truncateText(head + last, width - 2), theme.fg("thinking", "italic"))];
    }
    const seconds = Math.max(1, Math.round((part.ended - part.started) / 1000));
    return [mark + paint(truncateText(`Thought for ${seconds}s (ctrl+t to show)`, width - 2), theme.fg("thinking", "italic"))];
  }
}
