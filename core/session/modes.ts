/**
 * A session's mode, a policy on its approval gate: `plan` only reads and plans, `auto-accept`
 * lets file changes in the project run without asking. Kept in the session (mode_change entries)
 * so a resume comes back in it. Plain data: the start-up path reads it without zod.
 */
export const SESSION_MODES = ["default", "plan", "auto-accept"] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

export function isSessionMode(value: unknown): value is SessionMode {
  return (SESSION_MODES as readonly unknown[]).includes(value);
}

/** The answers a plan request offers (exit_plan_mode); any other answer is the user's feedback, and the plan is not approved. */
export const PLAN_CHOICES = { approve: "Approve", acceptEdits: "Approve, auto-accept edits", keepPlanning: "Keep planning" } as const;

/** The mode an answer to a plan request switches to; undefined: not approved. */
export function approvedMode(choice: string | undefined): SessionMode | undefined {
  if (choice === PLAN_CHOICES.approve) return "default";
  if (choice === PLAN_CHOICES.acceptEdits) return "auto-accept";
  return undefined;
}

/** What omp puts before a prompt for the model only (plan mode's reminder) starts with this. */
export const SYSTEM_NOTE = "<system-reminder>";

/** A user message's parts as the user wrote them, without omp's notes for the model. */
export function withoutSystemNotes<T extends { type: string; text?: string }>(parts: readonly T[]): T[] {
  return parts.filter((part) => part.type !== "text" || !part.text?.startsWith(SYSTEM_NOTE));
}
