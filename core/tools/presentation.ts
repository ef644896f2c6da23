import type { ResultView, TerminalPresenter, ToolInput, ToolPresentation } from "./declare.ts";
import { declarationOf } from "./declarations/index.ts";
import { cut, oneLine } from "./declarations/text.ts";

export type { ResultView, ToolKind, ToolPresentation } from "./declare.ts";

/**
 * How each tool's calls are shown, for every front end (the editor's row for ACP, the terminal's
 * for the interactive mode's blocks and print's progress lines), read from the tool's declaration
 * (core/tools/declarations). A tool without one (MCP, plugins) shows as `other` with its name and
 * its input on one line, and its result's first rows.
 */
function terminalRow(toolName: string): TerminalPresenter {
  return declarationOf(toolName)?.terminal ?? {};
}

/** The call's main argument for a terminal's block header: the command, the path, the pattern. */
export function terminalArgument(toolName: string, input: unknown): string {
  const record = input !== null && typeof input === "object" ? (input as ToolInput) : {};
  const argument = terminalRow(toolName).argument;
  if (argument) {
    try {
      return argument(record);
    } catch {
      // The model's malformed arguments: shown as they came.
    }
  }
  const json = JSON.stringify(record) ?? "";
  return json === "{}" ? "" : json;
}

/** The call's main argument on one line of at most 120 characters, for print mode's progress lines. */
export function progressArgument(toolName: string, input: unknown): string {
  return oneLine(terminalArgument(toolName, input));
}

/** A finished call's details in a few words, for beside a terminal block's header; "" when there is nothing to say. */
export function terminalNote(toolName: string, details: unknown): string {
  if (details === null || typeof details !== "object") return "";
  return terminalRow(toolName).note?.(details as ToolInput) ?? "";
}

/** How a terminal shows the call's result. */
export function resultView(toolName: string): ResultView {
  return terminalRow(toolName).result ?? "brief";
}

/** The presentation of a call of `toolName` with `input`, for a session in `cwd`. */
export function presentTool(toolName: string, input: unknown, cwd: string): ToolPresentation {
  const record = input !== null && typeof input === "object" ? (input as ToolInput) : {};
  const presenter = declarationOf(toolName)?.editor;
  if (presenter) {
    try {
      const shown = presenter(record, cwd);
      return { ...shown, locations: shown.locations ?? (shown.diffs ?? []).map((diff) => ({ path: diff.path })).slice(0, 1) };
    } catch {
      // Arguments of the wrong shape (the model's mistake, reported by the tool): the generic row.
    }
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  const name = mcp ? `${mcp[1]}: ${mcp[2]}` : toolName;
  const summary = oneLine(JSON.stringify(record) ?? "");
  return { kind: "other", title: summary && summary !== "{}" ? cut(`${name} ${summary}`) : name, locations: [] };
}
