import { paint, truncateText, visibleWidth } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";
import { plural } from "../../../core/plural.ts";

export { formatCount as formatTokens, formatDollars as formatCost } from "../../../core/usage/format.ts";
import { formatCount as formatTokens, formatDollars as formatCost } from "../../../core/usage/format.ts";

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}

export interface StatusInfo {
  /** What is happening now ("⠋ Working 12s · esc to interrupt"), or a hint; may be empty. */
  activity: string;
  activityStyle: "accent" | "muted" | "warning";
  /** The activity is only where omp runs (nothing happening): it gives way to the rest, cut from its start. */
  activityShrinks?: boolean;
  model: string;
  thinking?: string;
  input: number;
  output: number;
  cost: number;
  /** Share of the context window in use, 0..100. */
  contextPercent: number;
  /** The MCP servers' state ("MCP 1/3 starting…"); a problem shows in the warning colour. */
  mcp?: { text: string; problem: boolean };
  /** Background jobs running (`/jobs`). */
  jobs?: number;
  /** A subscription limit of the model's account at 80 % or more ("5-hour limit 85%"); `error` from 95 %. */
  limit?: { text: string; level: "warning" | "error" };
  /** The session's mode ("⏸ plan mode"; the default one as its approval mode: "yolo: no approvals"). */
  mode?: string;
  /** Whether the model's commands are sandboxed ("sandbox workspace-write"); `warning` when nothing holds them. */
  sandbox?: { text: string; warning: boolean };
  /** The session is shared live (/collab): "⇄ shared · 2 guests"; `warning` while the relay is unreachable. */
  collab?: { text: string; warning: boolean };
}

/**
 * The line above the editor: activity on the left; model, tokens, cost and context use on the
 * right (MCP servers' state first). Right-hand parts are dropped from the least important end when
 * the terminal is narrow.
 */
export function renderStatusLine(info: StatusInfo, width: number, theme: Theme): string {
  const contextStyle = info.contextPercent >= 85 ? theme.fg("error") : info.contextPercent >= 60 ? theme.fg("warning") : theme.fg("muted");
  const parts: [string, string][] = [
    ...(info.limit ? ([[info.limit.text, theme.fg(info.limit.level)]] as [string, string][]) : []),
    ...(info.mode ? ([[info.mode, theme.fg("warning", "bold")]] as [string, string][]) : []),
    ...(info.collab ? ([[info.collab.text, theme.fg(info.collab.warning ? "warning" : "accent")]] as [string, string][]) : []),
    ...(info.sandbox ? ([[info.sandbox.text, theme.fg(info.sandbox.warning ? "warning" : "muted")]] as [string, string][]) : []),
    ...(info.jobs ? ([[plural(info.jobs, "job"), theme.fg("accent")]] as [string, string][]) : []),
    ...(info.mcp ? ([[info.mcp.text, theme.fg(info.mcp.problem ? "warning" : "muted")]] as [string, string][]) : []),
    [info.model, theme.fg("accent")],
    ...(info.thinking ? ([[`think ${info.thinking}`, theme.fg("muted")]] as [string, string][]) : []),
    [`↑${formatTokens(info.input)} ↓${formatTokens(info.output)}`, theme.fg("muted")],
    [formatCost(info.cost), theme.fg("muted")],
    [`ctx ${info.contextPercent}%`, contextStyle],
  ];
  const join = (list: [string, string][]) => list.map(([text]) => text).join(" · ");
  // The mode, the sandbox and sharing are never dropped: what may happen without asking, and who watches, are always in view.
  const kept = (text: string) => text === info.mode || text === info.sandbox?.text || text === info.collab?.text;
  const keptWidth = visibleWidth(join(parts.filter(([text]) => kept(text))));
  const room = info.activityShrinks ? width - visibleWidth(join(parts)) - 2 : Infinity;
  const activityWidth = Math.min(visibleWidth(info.activity), Math.max(0, width - Math.max(20, keptWidth + 3)), Math.max(12, room));
  const activity = activityWidth < visibleWidth(info.activity) && info.activityShrinks ? truncateStart(info.activity, activityWidth) : truncateText(info.activity, activityWidth);
  let right = parts;
  while (right.some(([text]) => !kept(text)) && visibleWidth(join(right)) + visibleWidth(activity) + 2 > width) {
    // Thinking and the token counts go first; the model and context stay longest.
    const droppable = right.map(([text], i) => (kept(text) ? -1 : i)).filter((i) => i >= 0);
    const first = right.findIndex(([text]) => text.startsWith("think ") || text.startsWith("↑"));
    const drop = first !== -1 ? first : droppable.length > 1 ? droppable[droppable.length - 2]! : droppable[0]!;
    right = right.filter((_, i) => i !== drop);
  }
  const rightText = truncateText(join(right), Math.max(0, width - visibleWidth(activity) - 1));
  const gap = Math.max(1, width - visibleWidth(activity) - visibleWidth(rightText));
  const styledRight = visibleWidth(rightText) === visibleWidth(join(right)) ? right.map(([text, style]) => paint(text, style)).join(paint(" · ", theme.fg("dim"))) : paint(rightText, theme.fg("muted"));
  return paint(activity, theme.fg(info.activityStyle)) + " ".repeat(gap) + styledRight;
}

/** The end of `text` in `width` cells, with an ellipsis for what was cut from its start (the end of a path says most). */
function truncateStart(text: string, width: number): string {
  if (width <= 0) return "";
  const chars = [...text];
  let out = "";
  for (let i = chars.length - 1; i >= 0 && visibleWidth(chars[i]! + out) <= width - 1; i--) out = chars[i]! + out;
  return `…${out}`;
}
