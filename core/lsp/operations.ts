import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type {
  CodeAction,
  Command,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  Position,
  SymbolInformation,
  WorkspaceEdit,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import { type LspClient, LspError, fileUri } from "./client.ts";
import { formatDiagnostic, isProblem, listDiagnostics } from "./diagnostics.ts";
import type { LspManager } from "./manager.ts";
import { type FileChange, planWorkspaceEdit } from "./workspace-edit.ts";

/** Results longer than this are cut, saying so. */
const MAX_CHARS = 12_000;
const MAX_LOCATIONS = 100;
const SYMBOL_KINDS = ["", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"];

export interface Target {
  path: string;
  /** 1-based, as read shows lines. */
  line?: number;
  col?: number;
  /** Text on the line whose first occurrence marks the position. */
  symbol?: string;
}

/**
 * The open, synced document of `path` and its server. A file the server has not checked yet is
 * waited for (bounded): until its first diagnostics, a server may still be loading the project and
 * answer references or rename from this one file alone.
 */
export async function openDocument(manager: LspManager, path: string): Promise<{ client: LspClient; text: string }> {
  const text = readFileSync(path, "utf8");
  const { client } = await manager.diagnose(path, text);
  return { client, text };
}

/** The LSP position of a target, or an LspError saying what to give instead. */
export function positionOf(text: string, target: Target): Position {
  if (target.line === undefined) throw new LspError("this operation needs line (1-based) and symbol or col");
  const lines = text.split("\n");
  const line = lines[target.line - 1];
  if (target.line < 1) throw new LspError("line is 1-based, as read shows it");
  if (line === undefined) throw new LspError(`line ${target.line} is past the end of the file (${lines.length} lines)`);
  if (target.symbol) {
    const word = new RegExp(`(?<![\\w$])${target.symbol.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`).exec(line);
    const at = word?.index ?? line.indexOf(target.symbol);
    if (at === -1) throw new LspError(`${JSON.stringify(target.symbol)} is not on line ${target.line}: ${line.trim().slice(0, 200)}`);
    return { line: target.line - 1, character: at };
  }
  const character = (target.col ?? (line.length - line.trimStart().length) + 1) - 1;
  return { line: target.line - 1, character: Math.min(character, line.length) };
}

/** `file:line:col` of a location plus its line's text, paths shown relative to the session. */
function describeLocations(locations: Location[], show: (path: string) => string): string[] {
  const cache = new Map<string, string[]>();
  const lineText = (path: string, line: number) => {
    if (!cache.has(path)) {
      try {
        cache.set(path, readFileSync(path, "utf8").split("\n"));
      } catch {
        cache.set(path, []);
      }
    }
    return (cache.get(path)![line] ?? "").trim().slice(0, 200);
  };
  const lines = locations.slice(0, MAX_LOCATIONS).map((location) => {
    const path = fileURLToPath(location.uri);
    const { line, character } = location.range.start;
    return `${show(path)}:${line + 1}:${character + 1}: ${lineText(path, line)}`;
  });
  if (locations.length > MAX_LOCATIONS) lines.push(`… and ${locations.length - MAX_LOCATIONS} more`);
  return lines;
}

const asLocations = (result: Location | Location[] | LocationLink[] | null): Location[] =>
  (result === null ? [] : Array.isArray(result) ? result : [result]).map((item) => ("targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item));

export async function definition(manager: LspManager, target: Target, show: (path: string) => string): Promise<string> {
  const { client, text } = await openDocument(manager, target.path);
  const result = await client.request<Location | Location[] | LocationLink[] | null>("textDocument/definition", { textDocument: { uri: fileUri(target.path) }, position: positionOf(text, target) });
  const locations = asLocations(result);
  return locations.length === 0 ? "No definition found at that position." : describeLocations(locations, show).join("\n");
}

export async function references(manager: LspManager, target: Target, show: (path: string) => string): Promise<string> {
  const { client, text } = await openDocument(manager, target.path);
  const result = await client.request<Location[] | null>("textDocument/references", { textDocument: { uri: fileUri(target.path) }, position: positionOf(text, target), context: { includeDeclaration: true } }, 30_000);
  const locations = result ?? [];
  if (locations.length === 0) return "No references found at that position.";
  const files = new Set(locations.map((location) => location.uri)).size;
  return [`${locations.length} reference(s) in ${files} file(s):`, ...describeLocations(locations, show)].join("\n");
}

function markedText(content: MarkedString | { kind: string; value: string }): string {
  if (typeof content === "string") return content;
  return "language" in content ? `\`\`\`${content.language}\n${content.value}\n\`\`\`` : content.value;
}

export async function hover(manager: LspManager, target: Target): Promise<string> {
  const { client, text } = await openDocument(manager, target.path);
  const result = await client.request<Hover | null>("textDocument/hover", { textDocument: { uri: fileUri(target.path) }, position: positionOf(text, target) });
  if (!result) return "Nothing to show at that position.";
  const parts = Array.isArray(result.contents) ? result.contents : [result.contents];
  return cut(parts.map(markedText).join("\n\n").trim() || "Nothing to show at that position.");
}

export async function documentSymbols(manager: LspManager, path: string): Promise<string> {
  const { client } = await openDocument(manager, path);
  const result = await client.request<(DocumentSymbol | SymbolInformation)[] | null>("textDocument/documentSymbol", { textDocument: { uri: fileUri(path) } });
  const lines: string[] = [];
  const walk = (symbols: DocumentSymbol[], depth: number) => {
    for (const symbol of symbols) {
      lines.push(`${"  ".repeat(depth)}${SYMBOL_KINDS[symbol.kind] ?? "symbol"} ${symbol.name} :${symbol.selectionRange.start.line + 1}`);
      if (symbol.children) walk(symbol.children, depth + 1);
    }
  };
  for (const symbol of result ?? []) {
    if ("location" in symbol) lines.push(`${SYMBOL_KINDS[symbol.kind] ?? "symbol"} ${symbol.containerName ? `${symbol.containerName}.` : ""}${symbol.name} :${symbol.location.range.start.line + 1}`);
    else walk([symbol], 0);
  }
  return lines.length === 0 ? "No symbols in the file." : cut(lines.join("\n"));
}

export async function workspaceSymbols(manager: LspManager, query: string, path: string | undefined, show: (path: string) => string): Promise<string> {
  const clients = path ? [(await openDocument(manager, path)).client] : manager.running();
  if (clients.length === 0) throw new LspError("no language server is running yet; give path (any file of the language) to start one");
  const found: string[] = [];
  for (const client of clients) {
    const result = await client.request<(SymbolInformation | WorkspaceSymbol)[] | null>("workspace/symbol", { query }, 30_000);
    for (const symbol of result ?? []) {
      const location = symbol.location;
      const where = "range" in location ? `${show(fileURLToPath(location.uri))}:${location.range.start.line + 1}` : show(fileURLToPath(location.uri));
      found.push(`${SYMBOL_KINDS[symbol.kind] ?? "symbol"} ${symbol.containerName ? `${symbol.containerName}.` : ""}${symbol.name} ${where}`);
    }
  }
  if (found.length === 0) return `No symbols match ${JSON.stringify(query)}.`;
  return cut([...found.slice(0, MAX_LOCATIONS), ...(found.length > MAX_LOCATIONS ? [`… and ${found.length - MAX_LOCATIONS} more`] : [])].join("\n"));
}

export async function rename(manager: LspManager, target: Target, newName: string): Promise<{ client: LspClient; changes: FileChange[] }> {
  const { client, text } = await openDocument(manager, target.path);
  const result = await client.request<WorkspaceEdit | null>("textDocument/rename", { textDocument: { uri: fileUri(target.path) }, position: positionOf(text, target), newName }, 30_000);
  if (!result) throw new LspError("the server cannot rename at that position; point line and symbol at the name itself");
  return { client, changes: planWorkspaceEdit(result) };
}

/** The file's code actions on the target's line (or the whole file without one), with the diagnostics there. */
export async function codeActions(manager: LspManager, target: Target): Promise<{ client: LspClient; actions: (CodeAction | Command)[] }> {
  const { client, text } = await openDocument(manager, target.path);
  const lines = text.split("\n");
  const range = target.line === undefined
    ? { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } }
    : { start: { line: target.line - 1, character: 0 }, end: { line: target.line - 1, character: lines[target.line - 1]?.length ?? 0 } };
  const diagnostics = (client.diagnosticsOf(target.path)?.diagnostics ?? []).filter((d) => d.range.end.line >= range.start.line && d.range.start.line <= range.end.line);
  const actions = await client.request<(CodeAction | Command)[] | null>("textDocument/codeAction", { textDocument: { uri: fileUri(target.path) }, range, context: { diagnostics } }, 30_000);
  return { client, actions: actions ?? [] };
}

/** A chosen code action's edit, resolved when the server sends it without one. */
export async function codeActionEdit(client: LspClient, action: CodeAction | Command): Promise<WorkspaceEdit> {
  if (!("title" in action) || typeof (action as CodeAction).kind === "undefined" && "command" in action && typeof action.command === "string") {
    throw new LspError("that action is a server command, which omp does not run; pick one with an edit");
  }
  let resolved = action as CodeAction;
  if (!resolved.edit && client.capabilities.codeActionProvider && typeof client.capabilities.codeActionProvider === "object" && client.capabilities.codeActionProvider.resolveProvider) {
    resolved = await client.request<CodeAction>("codeAction/resolve", resolved, 30_000);
  }
  if (!resolved.edit) throw new LspError("that action has no edit omp can apply (it runs a server command)");
  return resolved.edit;
}

/** A file's diagnostics after a fresh check, or every file the running servers have reported on. */
export async function diagnostics(manager: LspManager, path: string | undefined, show: (path: string) => string): Promise<string> {
  if (path) {
    const text = readFileSync(path, "utf8");
    const result = await manager.diagnose(path, text);
    const found = result.after ?? result.client.diagnosticsOf(path)?.diagnostics;
    if (!found) return `${result.client.server.name} sent no diagnostics for ${show(path)} in time; try again.`;
    const shown = found.filter((d) => (d.severity ?? 1) <= 3);
    return shown.length === 0 ? `No problems in ${show(path)} (${result.client.server.name}).` : shown.slice(0, 50).map((d) => formatDiagnostic(show(path), d)).join("\n") + (shown.length > 50 ? `\n… and ${shown.length - 50} more` : "");
  }
  const clients = manager.running();
  if (clients.length === 0) return "No language server is running yet, so nothing is known; give path to check a file.";
  const entries: { path: string; diagnostic: Diagnostic }[] = [];
  for (const client of clients) {
    for (const [uri, list] of client.allDiagnostics()) for (const diagnostic of list.filter(isProblem)) entries.push({ path: show(fileURLToPath(uri)), diagnostic });
  }
  const note = "(files the servers have checked: those opened this session, and more for servers that check the whole project)";
  return entries.length === 0 ? `No errors or warnings ${note}.` : [`${entries.length} problem(s) ${note}:`, ...listDiagnostics(entries, 100)].join("\n");
}

function cut(text: string): string {
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n… [cut: ${text.length - MAX_CHARS} more chars]` : text;
}
