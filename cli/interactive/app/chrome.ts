import type { Completer } from "../commands/completion.ts";
import type { Chrome } from "../terminal/frames.ts";
import type { QueuedMessage } from "../../../core/session-host/host.ts";
import { sanitize } from "../../shared/terminal-text.ts";
import type { Overlays } from "./overlays.ts";
import type { PromptEditor } from "../widgets/prompt-editor.ts";
import { paint, truncateText } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";

export type { Chrome };

const EMPTY_HINT = "Ask anything · / commands · @ files · ! shell";

export interface ChromeParts {
  queued: readonly QueuedMessage[];
  /** Already drawn for this width. */
  statusLine: string;
  overlays: Overlays;
  editor: PromptEditor;
  completer: Completer;
  theme: Theme;
}

/**
 * Everything below the transcript: queued messages, the status line, the editor or an overlay
 * between two borders (coloured for `!` shell input and approvals), then completion suggestions.
 */
export function renderChrome(parts: ChromeParts, width: number, height: number): Chrome {
  const { theme, overlays, editor } = parts;
  const rows: string[] = ["", ...queuedRows(parts.queued, width, theme)];
  rows.push(parts.statusLine);
  const overlayKind = overlays.kind;
  const shellMode = editor.text.startsWith("!") && !overlayKind;
  const border = paint("─".repeat(width), shellMode ? theme.fg("bashMode") : overlayKind === "approval" ? theme.fg("warning") : theme.fg("border"));
  rows.push(border);
  let cursor: { row: number; col: number } | undefined;
  const overlay = overlays.render(width, height, rows.length, theme);
  if (overlay) {
    cursor = overlay.cursor;
    rows.push(...overlay.rows);
  } else {
    const maxRows = Math.max(1, Math.min(12, Math.floor(height * 0.4)));
    const drawn = editor.render(width, maxRows, EMPTY_HINT, shellMode ? "shell" : "prompt");
    cursor = { row: rows.length + drawn.cursor.row, col: drawn.cursor.col };
    rows.push(...drawn.rows);
  }
  rows.push(border);
  if (!overlayKind) rows.push(...parts.completer.render(width, Math.max(2, Math.min(8, Math.floor(height * 0.3))), theme));
  return cursor ? { rows, cursor } : { rows };
}

/** The rows above the status line: the first few messages queued while the agent works. */
function queuedRows(queued: readonly QueuedMessage[], width: number, theme: Theme): string[] {
  const rows: string[] = [];
  for (const q of queued.slice(0, 3)) {
    const label = q.kind === "steer" ? "steer" : "follow-up";
    rows.push(paint(truncateText(`  ↳ queued ${label}: ${sanitize(q.text.split("\n")[0]!)}`, width), theme.fg("muted")));
  }
  if (queued.length > 3) rows.push(paint(`  … ${queued.length - 3} more queued`, theme.fg("dim")));
  return rows;
}
