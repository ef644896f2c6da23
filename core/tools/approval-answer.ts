import type { ApprovalDecision } from "./approval.ts";

/**
 * What an approval answer means, decided in one place for every front end (rpc's
 * extension_ui_response, ACP's session/request_permission): only an explicit allow option runs the
 * call. A deny, text that names no option, a bare `confirmed: true`, a cancellation, a timeout or
 * a host that went away all deny.
 */

/** As ACP names them; rpc offers the same three by label. */
export type ApprovalOptionKind = "allow_once" | "allow_always" | "reject_once";

export interface ApprovalOption {
  id: string;
  label: string;
  kind: ApprovalOptionKind;
}

/** The options of an approval; "always" says what it covers. */
export function approvalOptions(always: string): ApprovalOption[] {
  return [
    { id: "allow", label: "Allow", kind: "allow_once" },
    { id: "allow_always", label: always, kind: "allow_always" },
    { id: "reject", label: "Deny", kind: "reject_once" },
  ];
}

/** What came back, whatever the wire: an option picked (by id or label), or why none was. */
export type ApprovalAnswer =
  | { picked: string; confirmed?: boolean }
  | { unanswered: "cancelled" | "timed-out" | "gone" | "no-choice" };

/** Why no option was picked, when that is not the user saying no (a plain no carries no reason: it ends the turn). */
const UNANSWERED: Partial<Record<Extract<ApprovalAnswer, { unanswered: unknown }>["unanswered"], string>> = {
  "timed-out": "nobody answered the approval in time",
  gone: "the host that could approve it has gone",
};

/**
 * A reason is the user's own words, for the model to read (it then goes on); a plain no — Deny,
 * Esc, a cancelled prompt, an answer that picks no allow option — has none and ends the turn.
 */
export function decideApproval(options: readonly ApprovalOption[], answer: ApprovalAnswer): ApprovalDecision {
  if ("unanswered" in answer) {
    const reason = UNANSWERED[answer.unanswered];
    return reason ? { allow: false, reason } : { allow: false };
  }
  const option = options.find((candidate) => candidate.id === answer.picked || candidate.label === answer.picked);
  if (!option) {
    // Words that are no option are the user's reason for saying no (rpc hosts send them so).
    const words = answer.picked.trim();
    return words ? { allow: false, reason: words } : { allow: false };
  }
  if (option.kind === "reject_once" || answer.confirmed === false) return { allow: false };
  return option.kind === "allow_always" ? { allow: true, remember: true } : { allow: true };
}
