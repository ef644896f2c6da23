import { cellSource } from "./notebook-cells.ts";
import { notebookText } from "./notebook.ts";

/**
 * Edits of a Jupyter notebook in the form read shows it (the original omp's `# %% [code] cell:N`
 * markers, each cell's outputs after `# >>>` lines): the edited text becomes the notebook again.
 * A marker naming an existing cell keeps that cell's id, metadata, outputs and execution count; a
 * marker without one (or naming a cell already used) is a new cell; a cell left out is deleted.
 * Output lines are never source: outputs come only from the notebook itself.
 */

const MARKER = /^# %% \[(code|markdown|raw)\](?: cell:(\d+))?[ \t]*$/;
/** Output lines, and the note read adds after the last cell when it left images out. */
const OUTPUT = /^# >>> |^\[\d+ more image outputs were not attached/;

type Notebook = { cells: Record<string, unknown>[]; metadata?: unknown; nbformat?: number; nbformat_minor?: number } & Record<string, unknown>;

export class NotebookEditError extends Error {}

/** The notebook's editable form, exactly as read shows it; undefined when `json` is no notebook. */
export function notebookView(json: string, name: string): string | undefined {
  return parseNotebook(json) ? notebookText(Buffer.from(json), name).text : undefined;
}

function parseNotebook(json: string): Notebook | undefined {
  try {
    const parsed = JSON.parse(json) as Notebook;
    return parsed && typeof parsed === "object" && Array.isArray(parsed.cells) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Whether text is in the cell-marker form (a write of a notebook's cells rather than of its JSON). */
export function isNotebookView(text: string): boolean {
  return MARKER.test(text.split("\n", 1)[0] ?? "");
}

/** Jupyter's source: lines with their newlines, the last without one. */
function sourceLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => `${line}\n`);
  lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
  return lines.filter((line) => line !== "");
}


/**
 * The notebook JSON for an edited view: `original` (the notebook's JSON; undefined for a new file,
 * which becomes an empty nbformat 4.5 notebook) with its cells as the view now lists them.
 * Throws NotebookEditError for a view that is not in cell-marker form.
 */
export function notebookFromView(view: string, original: string | undefined): string {
  const base: Notebook = (original !== undefined ? parseNotebook(original) : undefined) ?? {
    cells: [],
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  const withIds = (base.nbformat ?? 4) > 4 || ((base.nbformat ?? 4) === 4 && (base.nbformat_minor ?? 0) >= 5);
  const lines = view.replace(/\n+$/, "").split("\n");
  if (!MARKER.test(lines[0] ?? "")) {
    throw new NotebookEditError(`A notebook's text must start with a cell marker such as "# %% [code] cell:0" (as read shows it); the first line is ${JSON.stringify(lines[0] ?? "")}.`);
  }
  const used = new Set<number>();
  const ids = new Set<string>();
  const cells: Record<string, unknown>[] = [];
  for (let i = 0; i < lines.length; ) {
    const [, kind, index] = MARKER.exec(lines[i]!)!;
    const body: string[] = [];
    let inOutput = false;
    for (i++; i < lines.length && !MARKER.test(lines[i]!); i++) {
      if (OUTPUT.test(lines[i]!)) inOutput = true;
      if (!inOutput) body.push(lines[i]!);
    }
    // The blank line read puts between cells is not part of a cell.
    while (body.length > 0 && body.at(-1) === "") body.pop();
    const source = body.join("\n");
    const n = index === undefined ? undefined : Number(index);
    const existing = n !== undefined && !used.has(n) ? base.cells[n] : undefined;
    if (n !== undefined && existing) used.add(n);
    const cell: Record<string, unknown> = existing ? structuredClone(existing) : { cell_type: kind, metadata: {} };
    cell.cell_type = kind;
    // An unchanged source keeps its own form (a final newline, one string or a list).
    if (!existing || cellSource(existing.source).replace(/\n$/, "") !== source) cell.source = sourceLines(source);
    if (kind === "code") {
      cell.outputs ??= [];
      if (!("execution_count" in cell)) cell.execution_count = null;
    } else {
      delete cell.outputs;
      delete cell.execution_count;
    }
    if (withIds) {
      let id = typeof cell.id === "string" && !ids.has(cell.id) ? cell.id : undefined;
      while (!id || ids.has(id)) id = crypto.randomUUID().replaceAll("-", "").slice(0, 8);
      cell.id = id;
      ids.add(id);
    }
    cells.push(cell);
  }
  // Jupyter writes notebooks with one-space indentation and a final newline.
  return `${JSON.stringify({ ...base, cells }, null, 1)}\n`;
}
