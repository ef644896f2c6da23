import type { ReplaceRequest } from "./match.ts";

/**
 * What every edit format parses its input into, for the one engine (engine.ts) to apply. Kept
 * apart from the engine so the parsers, and the approval gate's path scope that reads them, do not
 * depend on it.
 */

export type TextOp = ({ kind: "replace" } & ReplaceRequest) | LinesOp;

/** Hashline: lines `from`..`to` (1-based, of the file as it was) replaced by `lines`; an insertion has to = from - 1. */
export interface LinesOp {
  kind: "lines";
  from: number;
  to: number;
  lines: string[];
  /** INS.TAIL: after the file's last line, whatever its number. */
  tail?: boolean;
}

export type FileChange =
  | { kind: "update"; path: string; ops: TextOp[]; moveTo?: string; tag?: string }
  | { kind: "create"; path: string; content: string }
  | { kind: "delete"; path: string };
