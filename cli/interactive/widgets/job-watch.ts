import type { Job } from "../../../core/shell/job.ts";
import type { Key } from "../terminal/keys.ts";
import { paint, truncateText } from "../render/text.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Theme } from "../render/theme.ts";

/**
 * A background job's output, live, in place of the editor (`/jobs watch <id>`): the latest lines
 * of a piped job, the rendered screen of a PTY job. Esc closes it; k kills the job.
 */
export class JobWatch {
  private screen: string | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    readonly job: Job,
    private readonly changed: () => void,
  ) {
    this.unsubscribe = job.onOutput(() => this.refresh());
    this.refresh();
  }

  private refresh(): void {
    if (this.job.options.pty) {
      void this.job.screen().then((screen) => {
        this.screen = screen;
        this.changed();
      });
    } else {
      this.changed();
    }
  }

  /** "close" when the watch should go, after killing the job for `k`. */
  handleKey(key: Key): "close" | undefined {
    if (key.name === "escape" || key.name === "q" || (key.ctrl && key.name === "c")) return "close";
    if (key.name === "k" && !key.ctrl && !key.alt) this.job.stop("kill");
    return undefined;
  }

  render(width: number, height: number, theme: Theme): string[] {
    const text = this.job.options.pty ? (this.screen ?? "") : this.job.recentOutput;
    const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n").map((line) => truncateText(sanitize(line), width));
    const shown = lines.slice(-Math.max(1, height - 1));
    const title = truncateText(this.job.summary(), width);
    return [paint(title, theme.fg(this.job.running ? "accent" : "muted")), ...shown, paint(truncateText("esc close · k kill", width), theme.fg("dim"))];
  }

  dispose(): void {
    this.unsubscribe();
  }
}
