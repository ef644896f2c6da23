import type { SessionHost } from "../../../core/session-host/host.ts";
import { SESSION_MODES, type SessionMode } from "../../../core/session/modes.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import type { ApprovalMode } from "../../../core/tools/approval.ts";
import { sandboxSupport } from "../../../core/sandbox/launcher-status.ts";

/** How the status line names a mode; the default one by what the approval mode asks. */
const MODE_LABELS: Record<Exclude<SessionMode, "default">, string> = { plan: "⏸ plan mode", "auto-accept": "⏵⏵ auto-accept edits" };
const APPROVAL_LABELS: Record<ApprovalMode, string> = { yolo: "yolo", write: "asks for changes", "always-ask": "asks for all" };

/** What the status line always says: the session's mode (the default one as its approval mode asks), and whether commands are sandboxed. */
export function policyStatus(host: SessionHost): { mode: string; sandbox: { text: string; warning: boolean } } {
  const options = host.agent.options;
  const mode = host.mode === "default" ? APPROVAL_LABELS[options.gate.mode] : MODE_LABELS[host.mode];
  const policy = options.sandbox;
  if (!policy) return { mode, sandbox: { text: "sandbox off", warning: options.gate.mode === "yolo" } };
  if (sandboxSupport().kind === "none") return { mode, sandbox: { text: "not sandboxed", warning: true } };
  return { mode, sandbox: { text: policy.mode === "workspace-write" ? "sandboxed" : `sandbox ${policy.mode}`, warning: false } };
}

/**
 * Shift+Tab: default → plan → auto-accept → default; app.plan.toggle (the original's Alt+Shift+P):
 * plan ↔ default. Under approval mode yolo nothing asks, so auto-accept would change nothing: it is
 * left out of the cycle.
 */
export function cycleMode(host: SessionHost, action: "app.mode.cycle" | "app.plan.toggle"): void {
  const cycle: readonly SessionMode[] = host.agent.options.gate.mode === "yolo" ? SESSION_MODES.filter((mode) => mode !== "auto-accept") : SESSION_MODES;
  const next = action === "app.plan.toggle" ? (host.mode === "plan" ? "default" : "plan") : cycle[(cycle.indexOf(host.mode) + 1) % cycle.length]!;
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
