import type { ApprovalDecision, ApprovalRequest } from "../../../core/tools/approval.ts";
import { ApprovalPrompt } from "../widgets/approval-prompt.ts";
import { QuestionPrompt, type QuestionEvent, type QuestionReply } from "../widgets/question-prompt.ts";
import { HistorySearch } from "../widgets/history-search.ts";
import type { Key } from "../terminal/keys.ts";
import type { PromptEditor } from "../widgets/prompt-editor.ts";
import { type Choice, SelectList } from "../widgets/select-list.ts";
import type { Theme } from "../render/theme.ts";
import type { Panel } from "../widgets/panel.ts";


type Overlay =
  | { kind: "picker"; list: SelectList<unknown>; resolve: (value: unknown) => void }
  | { kind: "approval"; prompt: Prompt }
  | { kind: "search"; search: HistorySearch; draft: string }
  | { kind: "panel"; panel: Panel };


/** A question the host waits on (an approval, the ask tool's, a plan): true from handleKey once answered. */
interface Prompt {
  handleKey(key: Key): boolean;
  paste(text: string): void;
  /** `room`: the rows the screen can give the prompt's text. */
  render(width: number, theme: Theme, room?: number): { rows: string[]; cursor?: { row: number; col: number } };
  /** Ctrl+O: the prompt's text takes all the room it has, or goes back to its usual rows. */
  expand?(on: boolean): void;
}

interface PendingPrompt {
  /** Makes the prompt when its turn comes; `done` once it is answered. */
  open(done: () => void): Prompt;
  /** omp is exiting before it was shown. */
  refuse(): void;
}

/**
 * What takes the editor's place for a while: a picker, a prompt the host waits on (approvals and
 * questions, one at a time, in the order asked), or the history search. Each gets the keys while
 * it is open.
 */
export class Overlays {
  private overlay: Overlay | undefined;
  private readonly prompts: PendingPrompt[] = [];

  constructor(
    private readonly editor: PromptEditor,
    /** Something changed that the next frame must show. */
    private readonly changed: () => void,
  ) {}

  get kind(): Overlay["kind"] | undefined {
    return this.overlay?.kind;
  }

  pick<T>(title: string, choices: Choice<T>[], filterable: boolean): Promise<T | undefined> {
    return new Promise((resolve) => {
      this.close();
      this.overlay = { kind: "picker", list: new SelectList(title, choices, filterable) as SelectList<unknown>, resolve: resolve as (value: unknown) => void };
      this.changed();
    });
  }

  approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      this.enqueue({ open: (done) => new ApprovalPrompt(request, (decision) => (resolve(decision), done())), refuse: () => resolve({ allow: false, reason: "omp is exiting" }) });
    });
  }

  /** The answers to a question request (and a plan as edited); undefined when the user leaves it for later. */
  question(request: QuestionEvent): Promise<QuestionReply | undefined> {
    return new Promise((resolve) => {
      let shown: QuestionPrompt | undefined;
      const pending: PendingPrompt = {
        open: (done) => (shown = new QuestionPrompt(request, (reply) => (clearTimeout(timer), resolve(reply), done()))),
        refuse: () => resolve(undefined),
      };
      // The host stops waiting after its timeout, and the picker goes with it.
      const timer = request.timeoutMs
        ? setTimeout(() => {
            if (shown) return shown.dismiss();
            this.prompts.splice(this.prompts.indexOf(pending), 1);
            resolve(undefined);
          }, request.timeoutMs)
        : undefined;
      this.enqueue(pending);
    });
  }

  private enqueue(pending: PendingPrompt): void {
    this.prompts.push(pending);
    this.showNextPrompt();
    this.changed();
  }

  /** Ctrl+R over the editor: the search starts from the draft, which comes back if it is cancelled. */
  searchHistory(find: (query: string) => string[]): void {
    this.overlay = { kind: "search", search: new HistorySearch(find), draft: this.editor.text };
  }

  openPanel(panel: Panel): void {
    this.close();
    this.overlay = { kind: "panel", panel };
    this.changed();
  }

  /** Ctrl+O, which expands the tools, while a prompt is open. */
  expand(on: boolean): void {
    if (this.overlay?.kind === "approval") this.overlay.prompt.expand?.(on);
  }

  /** Pasted text while an overlay is open: an approval prompt's feedback line, or a panel's field. */
  paste(text: string): void {
    if (this.overlay?.kind === "approval") this.overlay.prompt.paste(text);
    if (this.overlay?.kind === "panel") this.overlay.panel.paste?.(text);
  }

  /** A key while an overlay is open; Ctrl+C over an approval prompt also interrupts the run. */
  handleKey(key: Key, id: string, interrupt: () => void): void {
    const overlay = this.overlay!;
    if (overlay.kind === "approval") {
      overlay.prompt.handleKey(key);
      if (id === "ctrl+c") interrupt();
      return;
    }
    if (overlay.kind === "panel") {
      if (overlay.panel.handleKey(key) === "close") this.close();
      return;
    }
    if (overlay.kind === "picker") {
      const result = overlay.list.handleKey(key);
      if (result.type === "select" || result.type === "cancel") {
        this.overlay = undefined;
        overlay.resolve(result.type === "select" ? result.value : undefined);
      }
      return;
    }
    const result = overlay.search.handleKey(key);
    if (result.type === "changed") return;
    this.overlay = undefined;
    this.editor.setText(result.type === "accept" ? result.text : overlay.draft);
  }

  /** The open overlay's rows (`top`: the rows above them), or undefined when none is open. */
  render(width: number, height: number, top: number, theme: Theme): { rows: string[]; cursor?: { row: number; col: number } } | undefined {
    const overlay = this.overlay;
    if (overlay?.kind === "approval") {
      // Room for the request below what is already drawn, its choices and hints, and the border.
      const drawn = overlay.prompt.render(width, theme, height - top - 8);
      return drawn.cursor ? { rows: drawn.rows, cursor: { row: top + drawn.cursor.row, col: drawn.cursor.col } } : { rows: drawn.rows };
    }
    if (overlay?.kind === "picker") return { rows: overlay.list.render(width, Math.max(4, Math.min(16, height - top - 6)), theme) };
    if (overlay?.kind === "search") return { rows: overlay.search.render(width, theme) };
    if (overlay?.kind === "panel") return { rows: overlay.panel.render(width, Math.max(3, Math.min(24, height - top - 6)), theme) };
    return undefined;
  }

  /** omp is exiting: every approval and question still asked or waiting is refused, and whatever is open closes. */
  shutdown(): void {
    for (const pending of this.prompts.splice(0)) pending.refuse();
    if (this.overlay?.kind === "approval") this.overlay.prompt.handleKey({ name: "escape", ctrl: false, alt: false, shift: false });
    this.close();
  }

  private showNextPrompt(): void {
    if (this.overlay?.kind === "approval") return;
    const next = this.prompts.shift();
    if (!next) return;
    this.close();
    this.overlay = {
      kind: "approval",
      prompt: next.open(() => {
        this.overlay = undefined;
        this.showNextPrompt();
        this.changed();
      }),
    };
  }

  private close(): void {
    const overlay = this.overlay;
    this.overlay = undefined;
    if (overlay?.kind === "picker") overlay.resolve(undefined);
    if (overlay?.kind === "search") this.editor.setText(overlay.draft);
    if (overlay?.kind === "panel") overlay.panel.dispose?.();
  }
}
