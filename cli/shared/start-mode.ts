import type { SessionHost } from "../../core/session-host/host.ts";
import { parseApprovalFlag } from "../../core/tools/approval.ts";
import type { AgentFlags } from "../options/agent-options.ts";

/** `--approval-mode plan` (or auto-accept): the session starts in that mode, whatever a resumed session was in. */
export function startMode(host: SessionHost, flags: AgentFlags): SessionHost {
  const mode = flags.approvalMode ? parseApprovalFlag(flags.approvalMode).mode : undefined;
  if (mode && mode !== host.mode) void host.submit({ type: "set_mode", mode });
  return host;
}
