import type { SessionHost } from "../../../core/session-host/host.ts";
import { SESSION_MODES, type SessionMode } from "../../../core/session/modes.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";

/** How the status line names a mode; default says nothing. */
export const MODE_LABELS: Record<SessionMode, string> = { default: "", plan: "⏸ plan mode", "auto-accept": "⏵⏵ auto-accept edits" };

/** Shift+Tab: default → plan → auto-accept → default; app.plan.toggle (the original's Alt+Shift+P): plan ↔ default. */
export function cycleMode(host: SessionHost, action: "app.mode.cycle" | "app.plan.toggle"): void {
  const next = action === "app.plan.toggle" ? (host.mode === "plan" ? "default" : "plan") : SESSION_MODES[(SESSION_MODES.indexOf(host.mode) + 1) % SESSION_MODES.length]!;
  void host.submit({ type: "set_mode", mode: next });
}

/** `/plan`: into plan mode (the model reads and plans, then asks to carry the plan out), or back out of it. */
export const PLAN_COMMAND: SlashCommand = {
  name: "plan",
  description: "plan mode on or off: read-only until you approve the model's plan (shift+tab cycles modes)",
  async run(command: CommandHost) {
    const host = command.options.host;
    await host.submit({ type: "set_mode", mode: host.mode === "plan" ? "default" : "plan" });
    command.notice("info", host.mode === "plan" ? "Plan mode: the model reads and plans; changes wait for your approval of its plan." : "Plan mode is off.");
  },
};
