import { declared } from "./declare.ts";
import { evalTool as evalToolDeclaration } from "./declarations/eval.ts";
import { z } from "zod";
import type { ImageContent } from "../ai/messages.ts";
import type { KernelFrame } from "../eval/frames.ts";
import { Kernel, type KernelLanguage } from "../eval/kernel.ts";
import { sessionKernels } from "../eval/session-kernels.ts";
import { OmpError } from "../errors/omp-error.ts";
import { detectImage } from "./file-kind.ts";
import { createNumberedLog, OutputCollector } from "../shell/bash-output.ts";
import { READ_MAX_IMAGE_BYTES } from "./read.ts";
import { readFile, stat } from "node:fs/promises";
import { NotebookCellError, notebookCodeCells } from "../documents/notebook-cells.ts";
import { errorResult } from "./format.ts";
import { displayPath, notFoundMessage, readRefusal, resolveToolPath } from "./paths.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";

export const EVAL_DEFAULT_TIMEOUT_S = 30;
const EVAL_MAX_TIMEOUT_S = 3600;
/** Images one call returns at most; more are counted, not sent. */
const MAX_IMAGES = 8;
/** JSON outputs kept in the details (the session's record) at most, and the size of each; the model sees them in the text either way. */
const MAX_JSON_OUTPUTS = 20;
const MAX_JSON_CHARS = 64 * 1024;
/** A notebook whose cells eval runs is read whole, so its size is capped. */
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;

const cellSchema = z.object({
  language: z.enum(["py", "js"]).describe("py: the Python kernel; js: the JavaScript runtime"),
  code: z.string().describe("Cell source, verbatim"),
  title: z.string().optional().describe("Short label for the cell"),
  timeout: z.int().min(1).max(EVAL_MAX_TIMEOUT_S).optional().describe(`Seconds before the cell is stopped (default ${EVAL_DEFAULT_TIMEOUT_S})`),
  reset: z.boolean().optional().describe("Restart this language's runtime first (clears its state)"),
});

const notebookSchema = z.object({
  path: z.string().describe("The .ipynb file"),
  cells: z.array(z.union([z.int().min(0), z.string()])).min(1).optional().describe("Cell indexes (read's cell:N) or ids; default: every code cell"),
});

const schema = z
  .object({
    cells: z.array(cellSchema).min(1).optional().describe("Cells run in order; state persists per language across cells and calls"),
    notebook: notebookSchema.optional().describe("A notebook whose code cells run in the py kernel"),
  })
  .refine((input) => input.cells || input.notebook, { message: "Give cells, or a notebook whose code cells to run." });

export interface EvalCellDetails {
  language: KernelLanguage;
  title?: string;
  status: "complete" | "error" | "skipped";
  durationMs: number;
  timedOut?: boolean;
  aborted?: boolean;
}

export interface EvalDetails {
  cells: EvalCellDetails[];
  jsonOutputs: unknown[];
  images: number;
  truncated: boolean;
  logPath?: string;
  isError: boolean;
}

export const evalTool: ToolDefinition<typeof schema, EvalDetails> = {
  ...declared(evalToolDeclaration),
  schema,
  // The original omp 18.2 takes one cell at the top level ({language, code}); its docs, and omp, a list.
  acceptInput: (args) => (args !== null && typeof args === "object" && !("cells" in args) && "code" in args ? { cells: [args] } : args),
  async execute(input, context) {
    const cells = input.notebook ? await notebookCells(input.notebook, context) : [];
    if (typeof cells === "string") return errorResult(cells);
    return runCells([...cells, ...(input.cells ?? [])], context);
  },
};

/** The notebook's chosen code cells as py cells, read through the path policy as read reads it; a string says what was wrong. */
async function notebookCells(notebook: z.infer<typeof notebookSchema>, context: ToolContext): Promise<z.infer<typeof cellSchema>[] | string> {
  const path = resolveToolPath(context.cwd, notebook.path);
  const refused = readRefusal(context, path);
  if (refused !== undefined) return refused;
  let json: string;
  try {
    if ((await stat(path)).size > MAX_NOTEBOOK_BYTES) return `${displayPath(context.cwd, path)} is over ${MAX_NOTEBOOK_BYTES / 1024 / 1024} MB; run its cells by copying them into eval cells.`;
    json = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return notFoundMessage(context.cwd, path, "Notebook");
    return `Cannot read ${displayPath(context.cwd, path)}: ${(error as Error).message}`;
  }
  try {
    return notebookCodeCells(json, displayPath(context.cwd, path), notebook.cells).map(({ index, code }) => ({ language: "py" as const, code, title: `cell:${index}` }));
  } catch (error) {
    if (error instanceof NotebookCellError) return error.message;
    throw error;
  }
}

/** When no session owns the call (a bare tool context), its kernels are shared by such calls. */
const unowned = {};

async function kernelFor(language: KernelLanguage, reset: boolean, context: ToolContext): Promise<{ kernel: Kernel; note?: string }> {
  const kernels = sessionKernels(context.jobScope ?? unowned);
  const existing = kernels.get(language);
  let note: string | undefined;
  // A runtime started under another sandbox policy (the user changed it) is started again under this one.
  if (existing && (reset || !existing.alive || existing.policy !== context.sandbox)) {
    if (!reset && !existing.alive) note = `(The ${language} runtime had ended — ${existing.deathReason} — and was started again; its earlier state is gone.)`;
    existing.dispose();
    kernels.delete(language);
  } else if (existing) {
    return { kernel: existing };
  }
  const kernel = await Kernel.start(language, { cwd: context.cwd, sandbox: { policy: context.sandbox, secrets: context.secrets ?? [] } });
  kernels.set(language, kernel);
  return { kernel, ...(note ? { note } : {}) };
}

async function runCells(cells: z.infer<typeof cellSchema>[], context: ToolContext): Promise<ToolResult<EvalDetails>> {
  // The whole output goes to a log capped like bash's (bash.maxLogBytes, 50 MB by default).
  const collector = new OutputCollector(() => createNumberedLog(context.artifactsDir, "eval"), undefined, context.redact, context.shell?.maxLogBytes ? { maxLogBytes: context.shell.maxLogBytes } : {});
  const write = (text: string) => {
    if (text === "") return;
    collector.push(Buffer.from(text));
    context.onUpdate?.(text);
  };
  const images: ImageContent[] = [];
  let imagesDropped = 0;
  const details: EvalDetails = { cells: [], jsonOutputs: [], images: 0, truncated: false, isError: false };
  const onFrame = (frame: KernelFrame) => {
    if (frame.type === "stdout" || frame.type === "stderr") write(frame.data);
    else if (frame.type === "error") write(frame.traceback.length > 0 ? frame.traceback.join("") : `${frame.ename}: ${frame.evalue}\n`);
    else if (frame.type === "display" || frame.type === "result") {
      const shown = renderBundle(frame.bundle, details.jsonOutputs);
      if (shown.image) {
        if (images.length < MAX_IMAGES) images.push(shown.image);
        else imagesDropped++;
      }
      if (shown.text !== undefined) write(shown.text.endsWith("\n") ? shown.text : `${shown.text}\n`);
    }
  };

  for (const [index, cell] of cells.entries()) {
    const started = Date.now();
    const cellDetails: EvalCellDetails = { language: cell.language, ...(cell.title ? { title: cell.title } : {}), status: "complete", durationMs: 0 };
    details.cells.push(cellDetails);
    if (cells.length > 1) write(`[${index + 1}/${cells.length}]${cell.title ? ` ${cell.title}` : ""}\n`);
    if (context.signal.aborted) {
      cellDetails.status = "skipped";
      write("Cancelled before it ran.\n");
      details.isError = true;
      break;
    }
    const timeoutS = cell.timeout ?? EVAL_DEFAULT_TIMEOUT_S;
    let end;
    try {
      const { kernel, note } = await kernelFor(cell.language, cell.reset === true, context);
      if (note) write(`${note}\n`);
      end = await kernel.execute(cell.code, { signal: context.signal, timeoutMs: timeoutS * 1000, onFrame });
    } catch (error) {
      if (!(error instanceof OmpError)) throw error;
      write(`${error.message}\n`);
      end = { status: "error" as const };
    }
    cellDetails.durationMs = Date.now() - started;
    if (end.stopped === "timeout") {
      cellDetails.timedOut = true;
      write(`Cell timed out after ${timeoutS}s and was stopped. ${stateNote(cell.language, end.killed)} Pass a larger timeout (up to ${EVAL_MAX_TIMEOUT_S}) if it needs longer.\n`);
    } else if (end.stopped === "abort") {
      cellDetails.aborted = true;
      write(`Cell cancelled by the user and stopped. ${stateNote(cell.language, end.killed)}\n`);
    } else if (end.killed) {
      write(`The ${cell.language} runtime ended while running the cell${end.reason ? ` (${end.reason})` : ""}; the next cell starts a fresh one.\n`);
    }
    if (end.status === "error") {
      cellDetails.status = "error";
      details.isError = true;
      const rest = cells.length - index - 1;
      if (rest > 0) write(`[Cell ${index + 1} failed; the ${rest} cell(s) after it were not run.]\n`);
      break;
    }
  }

  const output = collector.finish();
  details.truncated = output.truncated;
  if (output.logPath) details.logPath = output.logPath;
  details.images = images.length;
  let text = output.text.replace(/\n$/, "");
  if (imagesDropped > 0) text += `\n[${imagesDropped} more image(s) displayed; only the first ${MAX_IMAGES} are returned.]`;
  if (text === "") text = images.length > 0 ? `(displayed ${images.length} image(s); no text output)` : "(no output)";
  return { content: [{ type: "text", text }, ...images], details, ...(details.isError ? { isError: true } : {}) };
}

function stateNote(language: KernelLanguage, killed: boolean | undefined): string {
  if (killed || language === "js") return `The ${language} runtime was ended to stop it, so its state is gone; the next cell starts a fresh one.`;
  return "The kernel was interrupted and keeps its state (reset: true starts it afresh).";
}

/** What the model sees of a display or result: one image, JSON, or the best text form (Jupyter's order). */
function renderBundle(bundle: Record<string, unknown>, json: unknown[]): { text?: string; image?: ImageContent } {
  for (const mimeType of ["image/png", "image/jpeg"]) {
    const data = bundle[mimeType];
    if (typeof data !== "string") continue;
    const bytes = Buffer.from(data, "base64");
    if (!detectImage(bytes)) return { text: `[a ${mimeType} display that is not a valid image was left out]` };
    if (bytes.length > READ_MAX_IMAGE_BYTES) return { text: `[a ${mimeType} image of ${bytes.length} bytes was left out: over the ${READ_MAX_IMAGE_BYTES} bytes a provider accepts]` };
    return { image: { type: "image", data, mimeType } };
  }
  if ("application/json" in bundle) {
    const text = JSON.stringify(bundle["application/json"], null, 2) ?? "null";
    if (json.length < MAX_JSON_OUTPUTS && text.length <= MAX_JSON_CHARS) json.push(bundle["application/json"]);
    return { text };
  }
  for (const mimeType of ["text/markdown", "text/plain", "text/html"]) {
    const value = bundle[mimeType];
    if (typeof value === "string") return { text: value };
  }
  return {};
}
