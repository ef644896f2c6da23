import { natives } from "../../../core/natives/index.ts";
import type { EditorBuffer } from "../widgets/editor-buffer.ts";
import { paint, padText, truncateText } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";

export interface CompletionItem {
  label: string;
  /** Replaces the token, trigger character included. */
  insert: string;
  detail?: string;
  /** A directory: accepting it keeps completing inside. */
  more?: boolean;
}

export interface Completion {
  kind: "command" | "path";
  /** Where the token starts in the cursor's line. */
  start: number;
  items: CompletionItem[];
  selected: number;
}

export interface CommandInfo {
  name: string;
  description: string;
  /** Shown after the name; a command with arguments is not run straight from the list. */
  args?: string;
}

const PATH_RESULTS = 8;

/**
 * Suggestions under the editor: slash commands when the prompt starts with `/`, and files for an
 * `@` token, found by the native fuzzy finder off the main thread. A slower search is cancelled
 * by the next keystroke's.
 */
export class Completer {
  current: Completion | undefined;
  private search: AbortController | undefined;
  /** The token Esc dismissed: no list for it until it changes. */
  private dismissed: string | undefined;

  constructor(
    private readonly commands: () => CommandInfo[],
    private readonly cwd: string,
    private readonly onUpdate: () => void,
  ) {}

  dismiss(buffer: EditorBuffer): void {
    this.dismissed = this.tokenKey(buffer);
    this.clear();
  }

  clear(): void {
    this.current = undefined;
    this.search?.abort();
    this.search = undefined;
  }

  private tokenKey(buffer: EditorBuffer): string {
    return `${buffer.row}:${buffer.line.slice(0, buffer.col)}`;
  }

  /**
   * A key while suggestions show: "run" when Enter accepted a command, which runs straight away
   * (its arguments are optional; a path is only completed), "taken" when the list used the key,
   * "passed" to let it through to the editor.
   */
  handleKey(id: string, buffer: EditorBuffer): "run" | "taken" | "passed" {
    const completion = this.current!;
    switch (id) {
      case "up":
      case "ctrl+p":
        this.move(-1);
        return "taken";
      case "down":
      case "ctrl+n":
        this.move(1);
        return "taken";
      case "tab":
        this.accept(buffer);
        return "taken";
      case "enter":
        return this.accept(buffer) && completion.kind === "command" ? "run" : "taken";
      case "escape":
        this.dismiss(buffer);
        return "taken";
    }
    return "passed";
  }

  /** Recomputes the suggestions for the text around the cursor. */
  update(buffer: EditorBuffer): void {
    const key = this.tokenKey(buffer);
    if (this.dismissed !== undefined) {
      if (key === this.dismissed) return;
      this.dismissed = undefined;
    }
    const before = buffer.line.slice(0, buffer.col);
    if (buffer.lines.length === 1 && /^\/[\w:-]*$/.test(before) && buffer.col === buffer.line.length) {
      this.search?.abort();
      const prefix = before.slice(1).toLowerCase();
      const items = this.commands()
        .filter((c) => c.name.startsWith(prefix))
        .map((c) => ({ label: `/${c.name}${c.args ? ` ${c.args}` : ""}`, insert: `/${c.name}${c.args ? " " : ""}`, detail: c.description }));
      this.current = items.length > 0 ? { kind: "command", start: 0, items, selected: 0 } : undefined;
      return;
    }
    const mention = /(?:^|\s)@([^\s@]*)$/.exec(before);
    if (!mention) {
      this.clear();
      return;
    }
    const query = mention[1]!;
    const start = buffer.col - query.length - 1;
    this.findPaths(query, start);
  }

  private findPaths(query: string, start: number): void {
    this.search?.abort();
    const controller = new AbortController();
    this.search = controller;
    let addon;
    try {
      addon = natives();
    } catch {
      // Without the native addon there is no fuzzy finder; @paths can still be typed out.
      this.current = undefined;
      return;
    }
    addon
      .fuzzyFind(query, { root: this.cwd, maxResults: PATH_RESULTS, signal: controller.signal, timeoutMs: 3000 })
      .then((result) => {
        if (controller.signal.aborted) return;
        const items = result.matches.map((m) => ({ label: m.isDir ? `${m.path}/` : m.path, insert: `@${m.path}${m.isDir ? "/" : " "}`, more: m.isDir }));
        this.current = items.length > 0 ? { kind: "path", start, items, selected: 0 } : undefined;
        this.onUpdate();
      })
      .catch(() => {
        // Cancelled by the next keystroke, or the search failed: no suggestions this time.
      });
  }

  move(delta: number): void {
    if (!this.current) return;
    const n = this.current.items.length;
    this.current.selected = (this.current.selected + delta + n) % n;
  }

  /** Puts the selected suggestion in place of the token; returns it. */
  accept(buffer: EditorBuffer): CompletionItem | undefined {
    const completion = this.current;
    const item = completion?.items[completion.selected];
    if (!completion || !item) return undefined;
    buffer.deleteBack(buffer.col - completion.start);
    buffer.insert(item.insert);
    this.clear();
    if (item.more) this.update(buffer);
    return item;
  }

  render(width: number, maxRows: number, theme: Theme): string[] {
    const completion = this.current;
    if (!completion) return [];
    const { items, selected } = completion;
    const top = Math.max(0, Math.min(selected - maxRows + 1, items.length - maxRows));
    const labelWidth = Math.min(Math.max(...items.map((i) => i.label.length)) + 2, Math.floor(width / 2));
    return items.slice(Math.max(0, top), Math.max(0, top) + maxRows).map((item, offset) => {
      const index = Math.max(0, top) + offset;
      const label = padText(item.label, labelWidth);
      const detail = item.detail ? truncateText(item.detail, Math.max(0, width - labelWidth - 2)) : "";
      if (index === selected) return paint(padText(`  ${label}${detail}`, width), `${theme.selected()};${theme.fg("accent", "bold")}`);
      return `  ${paint(label, theme.fg("accent"))}${paint(detail, theme.fg("dim"))}`;
    });
  }
}
