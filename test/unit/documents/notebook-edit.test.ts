import { describe, expect, test } from "bun:test";
import { isNotebookView, NotebookEditError, notebookFromView, notebookView } from "../../../core/documents/notebook-edit.ts";

const v44 = JSON.stringify({
  cells: [
    { cell_type: "code", execution_count: 3, metadata: { scrolled: true }, outputs: [{ output_type: "stream", name: "stdout", text: "hi\n" }], source: "print('hi')\n" },
    { cell_type: "markdown", metadata: {}, source: ["Notes"] },
  ],
  metadata: { custom: { keep: 1 } },
  nbformat: 4,
  nbformat_minor: 4,
});

describe("notebook cell edits", () => {
  test("the view is read's form; unchanged it gives back the same cells, sources in their own form", () => {
    const view = notebookView(v44, "a.ipynb")!;
    expect(view).toBe("# %% [code] cell:0\nprint('hi')\n# >>> output\nhi\n\n# %% [markdown] cell:1\nNotes");
    expect(JSON.parse(notebookFromView(view, v44))).toEqual(JSON.parse(v44));
  });

  test("before nbformat 4.5 no cell ids are added; a cell named twice is new the second time; a cell changed to markdown loses outputs", () => {
    const out = JSON.parse(notebookFromView("# %% [markdown] cell:0\nprint('hi')\n\n# %% [code] cell:0\nx = 1\n", v44));
    expect(out.cells).toEqual([
      { cell_type: "markdown", metadata: { scrolled: true }, source: "print('hi')\n" },
      { cell_type: "code", metadata: {}, source: ["x = 1"], outputs: [], execution_count: null },
    ]);
    expect(out.metadata).toEqual({ custom: { keep: 1 } });
    expect(out.nbformat_minor).toBe(4);
  });

  test("from 4.5 on every cell has a unique id; text before the first marker is refused", () => {
    const v45 = JSON.stringify({ ...JSON.parse(v44), nbformat_minor: 5, cells: [{ cell_type: "raw", id: "same", metadata: {}, source: [] }] });
    const out = JSON.parse(notebookFromView("# %% [raw] cell:0\n\n# %% [raw] cell:0\n\n# %% [code]\n1", v45));
    const ids = out.cells.map((cell: { id: string }) => cell.id);
    expect(ids[0]).toBe("same");
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(() => notebookFromView("\n# %% [code]\n1", v45)).toThrow(NotebookEditError);
    expect(isNotebookView("# %% [code]\nx")).toBe(true);
    expect(isNotebookView('{"cells": []}')).toBe(false);
    expect(notebookView("not json", "a.ipynb")).toBeUndefined();
  });
});
