import type { TextEdit } from "vscode-languageserver-protocol";
import { fileUri } from "./client.ts";
import { describeError } from "../errors/omp-error.ts";
import { changedLines, countProblems, introduced, listDiagnostics } from "./diagnostics.ts";
import { COLD_WAIT_MS, type LspManager, NoServerError, WARM_WAIT_MS, withTimeout } from "./manager.ts";
import { applyTextEdits } from "./text-edits.ts";

export interface AfterWrite {
  /** Appended to the tool's result for the model; "" when there is nothing to say. */
  note: string;
  /** The file's content after format-on-write, when the server changed it. */
  formatted?: string;
}

/** Extensions the "no server" hint was given for, once per session each. */
const hinted = new WeakMap<LspManager, Set<string>>();

/**
 * After write/edit put `text` in `path`: optionally formats it with its server (written with `save`), then reports the
 * errors and warnings the change introduced or touched. Never throws and never waits more than
 * the bounded diagnostics wait: a missing, crashing or hanging server costs a line, not the write.
 */
export async function afterWrite(manager: LspManager, path: string, text: string, shownPath: string, save: (path: string, text: string) => unknown): Promise<AfterWrite> {
  const { settings } = manager;
  if (!settings.enabled || (!settings.diagnosticsOnWrite && !settings.formatOnWrite)) return { note: "" };
  try {
    let formatted: string | undefined;
    if (settings.formatOnWrite) {
      const client = await manager.client(path);
      await client.sync(path, text);
      // A server that has not checked this file yet may still be loading the project.
      const budget = client.diagnosticsOf(path) ? WARM_WAIT_MS : Math.max(WARM_WAIT_MS, COLD_WAIT_MS - (Date.now() - client.startedAt));
      const edits = await client.request<TextEdit[] | null>("textDocument/formatting", { textDocument: { uri: fileUri(path) }, options: { tabSize: 2, insertSpaces: true } }, budget);
      const result = edits?.length ? applyTextEdits(text, edits) : text;
      if (result !== text) {
        await save(path, result);
        formatted = result;
      }
    }
    if (!settings.diagnosticsOnWrite) return { note: formatted ? `\n\nFormatted by the language server.` : "", formatted };
    const finalText = formatted ?? text;
    const result = await withTimeout(manager.diagnose(path, finalText), COLD_WAIT_MS + 2000, "no diagnostics in time");
    const name = result.client.server.name;
    const formatNote = formatted ? " The language server reformatted the file." : "";
    if (!result.after) return { note: `\n\nDiagnostics: ${name} is still checking this change (the machine may be busy); \`lsp diagnostics\` on the file shows them once it is done.${formatNote}`, formatted };
    const changed = result.previousText === undefined ? undefined : changedLines(result.previousText, finalText);
    const fresh = introduced(result.before, result.after, changed);
    const total = countProblems(result.after);
    const resolved = result.before ? Math.max(0, countProblems(result.before).errors - total.errors) : 0;
    const summary = `${total.errors} error(s), ${total.warnings} warning(s) in the file${resolved > 0 ? `; ${resolved} error(s) resolved` : ""}`;
    if (fresh.length === 0) return { note: `\n\nDiagnostics (${name}): no new problems; ${summary}.${formatNote}`, formatted };
    const lines = listDiagnostics(fresh.map((diagnostic) => ({ path: shownPath, diagnostic })));
    return { note: `\n\nDiagnostics (${name}): ${fresh.length} new or touched problem(s); ${summary}:\n${lines.join("\n")}${formatNote}`, formatted };
  } catch (error) {
    if (error instanceof NoServerError) {
      const ext = path.slice(path.lastIndexOf("."));
      const seen = hinted.get(manager) ?? new Set<string>();
      hinted.set(manager, seen);
      // Said once per extension: a project of untyped files should not hear it on every write.
      if (seen.has(ext) || error.quiet) return { note: "" };
      seen.add(ext);
      return { note: `\n\nNo diagnostics: ${error.message}.` };
    }
    return { note: `\n\nNo diagnostics: ${describeError(error)}.` };
  }
}
