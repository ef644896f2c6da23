/**
 * The original omp (`@oh-my-pi/pi-coding-agent` 18.x) starts a session file with a fixed-size
 * title slot it rewrites in place, `{"type":"title","v":1,"title":…,"pad":"   …"}`, and puts the
 * session header on the line after it. omp reads such files as they are and only ever appends to
 * them, so the original keeps its slot.
 */

const SLOT_START = '{"type":"title"';

/** Why a file is not a session, for every message that says so. */
export const NO_HEADER = "no session header on its first line, nor after the original omp's title line";

/** How many lines come before the session header: 1 after the original's title slot, else 0. */
export function headerLineIndex(lines: readonly string[]): number {
  return lines[0]?.startsWith(SLOT_START) && lines.length > 1 ? 1 : 0;
}

/** The title the slot holds (empty until the original names the session), or undefined without a slot. */
export function slotTitle(lines: readonly string[]): string | undefined {
  if (headerLineIndex(lines) === 0) return undefined;
  try {
    const title = (JSON.parse(lines[0]!) as { title?: unknown }).title;
    return typeof title === "string" ? title : undefined;
  } catch {
    return undefined;
  }
}
