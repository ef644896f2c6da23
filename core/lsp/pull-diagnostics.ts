import type { Diagnostic, DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { LspClient } from "./client.ts";

/**
 * typescript-language-server (and vtsls) publish a file's diagnostics only after a debounce of at
 * least 300 ms from the change, then in parts. Both expose tsserver itself through this command,
 * and tsserver answers `syntacticDiagnosticsSync` / `semanticDiagnosticsSync` for the file at once,
 * from the program it already has: a write asks for them instead of waiting for the publication.
 */
const TSSERVER_REQUEST = "typescript.tsserverRequest";

interface TsLocation {
  line: number;
  offset: number;
}

interface TsDiagnostic {
  start: TsLocation;
  end: TsLocation;
  text: string;
  code?: number;
  category?: string;
  source?: string;
}

/** As typescript-language-server maps them when it publishes, so pulled and published ones compare equal. */
const SEVERITY: Record<string, DiagnosticSeverity> = { error: 1, warning: 2, message: 3, suggestion: 4 };

/** Whether `client`'s server answers a file's diagnostics on request (see pullDiagnostics). */
export function canPullDiagnostics(client: LspClient): boolean {
  return client.capabilities.executeCommandProvider?.commands.includes(TSSERVER_REQUEST) === true;
}

/**
 * The current diagnostics of `path` (already synced), asked of the server rather than waited for;
 * undefined when the server has no such request or did not answer (the caller then waits for its
 * publication). Errors and warnings only matter to a write, so tsserver's suggestions are not asked.
 */
export async function pullDiagnostics(client: LspClient, path: string, timeoutMs: number): Promise<Diagnostic[] | undefined> {
  if (!canPullDiagnostics(client)) return undefined;
  const ask = (command: string) =>
    client.request<{ success?: boolean; body?: TsDiagnostic[] } | null>("workspace/executeCommand", { command: TSSERVER_REQUEST, arguments: [command, { file: path }] }, timeoutMs);
  try {
    const [syntactic, semantic] = await Promise.all([ask("syntacticDiagnosticsSync"), ask("semanticDiagnosticsSync")]);
    if (!Array.isArray(syntactic?.body) || !Array.isArray(semantic?.body)) return undefined;
    return [...syntactic.body, ...semantic.body].map(toLspDiagnostic);
  } catch {
    return undefined;
  }
}

function toLspDiagnostic(d: TsDiagnostic): Diagnostic {
  return {
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    severity: SEVERITY[d.category ?? "error"] ?? 1,
    ...(d.code === undefined ? {} : { code: d.code }),
    source: d.source ?? "typescript",
    message: d.text,
  };
}
