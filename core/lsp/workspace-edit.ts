import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TextEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import { LspError } from "./client.ts";
import { applyTextEdits } from "./text-edits.ts";

export interface FileChange {
  path: string;
  before: string;
  after: string;
  edits: number;
}

/**
 * What a server's WorkspaceEdit (rename, code action) would do to each file, read from disk now.
 * Creating, renaming and deleting files are refused: omp writes only text edits through its own
 * write path, which the approval gate has seen.
 */
export function planWorkspaceEdit(edit: WorkspaceEdit): FileChange[] {
  const byUri = new Map<string, TextEdit[]>();
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) byUri.set(uri, [...(byUri.get(uri) ?? []), ...edits]);
  for (const change of edit.documentChanges ?? []) {
    if (!("textDocument" in change)) throw new LspError(`the server's edit ${change.kind}s a file (${"uri" in change ? change.uri : change.oldUri}); omp applies text edits only`);
    byUri.set(change.textDocument.uri, [...(byUri.get(change.textDocument.uri) ?? []), ...change.edits.filter((item): item is TextEdit => "newText" in item)]);
  }
  return [...byUri].map(([uri, edits]) => {
    const path = fileURLToPath(uri);
    const before = readFileSync(path, "utf8");
    return { path, before, after: applyTextEdits(before, edits), edits: edits.length };
  });
}
