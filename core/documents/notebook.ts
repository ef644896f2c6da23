import { ArchiveError } from "../archives/archive-error.ts";
import type { DocumentImage } from "./convert.ts";

/** Image outputs attached per notebook read; the text says where the rest are. */
const MAX_IMAGES = 8;
/** One output's text beyond this is cut, saying so (a cell printing a whole data set). */
const MAX_OUTPUT_CHARS = 20_000;

interface Cell {
  cell_type?: string;
  source?: string | string[];
  outputs?: Output[];
  execution_count?: number | null;
}
interface Output {
  output_type?: string;
  name?: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
  ename?: string;
  evalue?: string;
}

const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join("") : (value ?? ""));

/**
 * A Jupyter notebook as its cells in the original's `# %% [code] cell:N` form, each with its
 * outputs; image outputs come back as images the model can look at.
 */
export function notebookText(bytes: Uint8Array, name: string): { text: string; images: DocumentImage[] } {
  let notebook: { cells?: Cell[]; metadata?: { kernelspec?: { language?: string }; language_info?: { name?: string } } };
  try {
    notebook = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ArchiveError("corrupt", `${name} is not a valid notebook: ${(error as Error).message}. Fix its JSON, or look at it with bash (head, jq).`, { cause: error });
  }
  if (!Array.isArray(notebook.cells)) throw new ArchiveError("corrupt", `${name} is not a Jupyter notebook (no "cells" list).`);
  const images: DocumentImage[] = [];
  let skipped = 0;
  const parts = notebook.cells.map((cell, index) => {
    const kind = cell.cell_type ?? "code";
    let text = `# %% [${kind}] cell:${index}\n${joined(cell.source).replace(/\n$/, "")}`;
    for (const output of cell.outputs ?? []) {
      const rendered = outputText(output);
      if (rendered) text += `\n# >>> ${output.output_type === "error" ? "error" : "output"}\n${cut(rendered)}`;
      for (const mimeType of ["image/png", "image/jpeg", "image/gif", "image/webp"]) {
        const data = output.data?.[mimeType];
        if (!data) continue;
        if (images.length < MAX_IMAGES) {
          images.push({ label: `cell ${index} output (${mimeType})`, mimeType, data: joined(data).replace(/\s+/g, "") });
          text += `\n# >>> image output ${images.length} (${mimeType}), attached below`;
        } else {
          skipped++;
          text += `\n# >>> image output (${mimeType}) not attached: more than ${MAX_IMAGES} images`;
        }
        break;
      }
    }
    return text;
  });
  if (skipped > 0) parts.push(`[${skipped} more image outputs were not attached; read cells by line range to see which.]`);
  return { text: parts.join("\n\n"), images };
}

function outputText(output: Output): string {
  if (output.output_type === "stream") return joined(output.text);
  if (output.output_type === "error") return `${output.ename ?? "Error"}: ${output.evalue ?? ""}`;
  const data = output.data ?? {};
  return joined(data["text/markdown"] ?? data["text/plain"]);
}

function cut(text: string): string {
  const trimmed = text.replace(/\n$/, "");
  return trimmed.length <= MAX_OUTPUT_CHARS ? trimmed : `${trimmed.slice(0, MAX_OUTPUT_CHARS)}\n… [output cut: ${trimmed.length - MAX_OUTPUT_CHARS} more chars]`;
}
