import { resolveToolPath } from "../paths.ts";
import type { ToolInput, ToolPresentation } from "../declare.ts";

const TITLE_CHARS = 120;

/** The value when it is a string, else "": the model's arguments may have any shape. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function firstLine(value: unknown): string {
  return typeof value === "string" ? value.split("\n")[0]! : "";
}

export function abs(path: unknown, cwd: string): string {
  return resolveToolPath(cwd, str(path) || ".");
}

export function at(path: unknown, cwd: string, line?: number): ToolPresentation["locations"] {
  return [{ path: abs(path, cwd), ...(line ? { line } : {}) }];
}

/** Text on one line of at most 120 characters. */
export function oneLine(text: string): string {
  return cut(text.replace(/\s*\n\s*/g, " ⏎ "));
}

export function cut(text: string): string {
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS)}…` : text;
}

/** An array argument's items, or none. */
export function items(value: unknown): ToolInput[] {
  return Array.isArray(value) ? (value as ToolInput[]) : [];
}

/** `input` with its keys renamed by `map`; keys it does not name stay. */
export function renameKeys(input: ToolInput, map: Readonly<Record<string, string>>): ToolInput {
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [map[key] ?? key, value]));
}

export function invert(map: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([a, b]) => [b, a]));
}
