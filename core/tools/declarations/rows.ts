import type { BashDetails } from "../bash.ts";
import type { TerminalPresenter } from "../declare.ts";
import type { EditDetails } from "../edit/engine.ts";
import type { PageDetails } from "../read-details.ts";
import { firstLine } from "./text.ts";

/** Terminal rows several tools share. */

/** A command's: its first line, duration and exit code, and the tail of its output. */
export const commandRow: TerminalPresenter<BashDetails> = {
  argument: (input) => firstLine(input.command),
  note: (d) => (typeof d.durationMs === "number" ? `${(d.durationMs / 1000).toFixed(1)}s${d.exitCode ? ` · exit ${d.exitCode}` : ""}` : undefined),
  result: "output",
};

/** A file change's lines added and removed. */
export const changed = (d: Partial<EditDetails>) => (typeof d.added === "number" ? `+${d.added} −${d.removed}` : undefined);

/** A page of a file or a fetched document. */
export const paged = (d: Partial<PageDetails>) => (typeof d.endLine === "number" ? `lines ${d.startLine}–${d.endLine} of ${d.totalLines}` : undefined);

/** A search's pattern and where, its result shown on expanding. */
export const searchRow: Omit<TerminalPresenter, "note"> = {
  argument: (input) => (input.path ? `${firstLine(input.pattern)}  in ${firstLine(input.path)}` : firstLine(input.pattern)),
  result: "on-expand",
};
