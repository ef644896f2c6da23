/** A notebook's code cells chosen to run: by index (read's `cell:N`) or by nbformat id; all, in order, when none are named. */
export interface NotebookCodeCell {
  index: number;
  code: string;
}

export class NotebookCellError extends Error {}

/** A cell's source as text: nbformat stores it as one string or a list of lines. */
export const cellSource = (source: unknown) => (Array.isArray(source) ? source.join("") : typeof source === "string" ? source : "");

export function notebookCodeCells(json: string, name: string, chosen?: (number | string)[]): NotebookCodeCell[] {
  let cells: { cell_type?: string; id?: string; source?: unknown }[];
  try {
    const parsed = JSON.parse(json) as { cells?: unknown; metadata?: { kernelspec?: { language?: string }; language_info?: { name?: string } } };
    if (!Array.isArray(parsed?.cells)) throw new NotebookCellError(`${name} is not a Jupyter notebook (no "cells" list).`);
    const language = parsed.metadata?.language_info?.name ?? parsed.metadata?.kernelspec?.language;
    if (language && language.toLowerCase() !== "python") throw new NotebookCellError(`${name} is a ${language} notebook; eval runs only Python notebooks.`);
    cells = parsed.cells;
  } catch (error) {
    if (error instanceof NotebookCellError) throw error;
    throw new NotebookCellError(`${name} is not a valid notebook: ${(error as Error).message}. Fix its JSON, or look at it with read.`);
  }
  const code = (index: number): NotebookCodeCell => ({ index, code: cellSource(cells[index]!.source) });
  if (chosen === undefined) return cells.flatMap((cell, index) => ((cell.cell_type ?? "code") === "code" ? [code(index)] : []));
  return chosen.map((wanted) => {
    const index = typeof wanted === "number" ? wanted : /^\d+$/.test(wanted) ? Number(wanted) : cells.findIndex((cell) => cell.id === wanted);
    const cell = cells[index];
    if (!cell) {
      throw new NotebookCellError(`${name} has no cell ${JSON.stringify(wanted)}: name a cell by its index 0-${cells.length - 1} (read shows them as cell:N) or by its id.`);
    }
    if ((cell.cell_type ?? "code") !== "code") throw new NotebookCellError(`Cell ${index} of ${name} is a ${cell.cell_type} cell, not code; only code cells run.`);
    return code(index);
  });
}
