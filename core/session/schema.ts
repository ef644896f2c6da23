import { z } from "zod";
import { Message } from "../ai/messages-schema.ts";
import { ThinkingLevel } from "../ai/model-schema.ts";
import { SESSION_MODES } from "./modes.ts";
import { SESSION_VERSION } from "./version.ts";

/**
 * The lines of a session file. Line 1 is the header; every other line is an entry in a tree
 * (`parentId`), appended and never rewritten, so a branch is a new child of an older entry. Objects
 * are not strict: a file written by a newer omp with extra fields still loads.
 */

export { SESSION_VERSION };

export const SessionHeader = z.object({
  type: z.literal("session"),
  version: z.literal(SESSION_VERSION),
  id: z.string().min(1),
  /** ISO 8601, when the session was created. */
  timestamp: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  /** Where this session came from (a fork or a handoff): an id or a path, kept as a note. */
  parentSession: z.string().optional(),
});
export type SessionHeader = z.infer<typeof SessionHeader>;

const base = {
  /** 8 hex characters, unique within the session. */
  id: z.string().min(1),
  /** null for a root entry. */
  parentId: z.string().min(1).nullable(),
  timestamp: z.string(),
};

export const MessageEntry = z.object({ type: z.literal("message"), ...base, message: Message });
export type MessageEntry = z.infer<typeof MessageEntry>;

export const ModelChangeEntry = z.object({
  type: z.literal("model_change"),
  ...base,
  /** `provider/id`. */
  model: z.string().min(1),
  /** Which role the model was chosen for; missing means `default`. */
  role: z.string().optional(),
});
export type ModelChangeEntry = z.infer<typeof ModelChangeEntry>;

export const ThinkingLevelChangeEntry = z.object({ type: z.literal("thinking_level_change"), ...base, thinkingLevel: ThinkingLevel });
export type ThinkingLevelChangeEntry = z.infer<typeof ThinkingLevelChangeEntry>;

/** The session's mode (modes.ts) from here on; a resume comes back in the last one. */
export const ModeChangeEntry = z.object({ type: z.literal("mode_change"), ...base, mode: z.enum(SESSION_MODES) });
export type ModeChangeEntry = z.infer<typeof ModeChangeEntry>;

export const CompactionEntry = z.object({
  type: z.literal("compaction"),
  ...base,
  /** Replaces everything on the branch before `firstKeptEntryId`. */
  summary: z.string(),
  firstKeptEntryId: z.string().min(1),
  tokensBefore: z.number().int().nonnegative(),
});
export type CompactionEntry = z.infer<typeof CompactionEntry>;

/** State of an extension or feature that is saved with the session but never sent to the model. */
export const CustomEntry = z.object({ type: z.literal("custom"), ...base, customType: z.string().min(1), data: z.unknown() });
export type CustomEntry = z.infer<typeof CustomEntry>;

/** A user's name for an entry of the tree (/tree); the latest label entry for a target wins, no `label` clears it. */
export const LabelEntry = z.object({ type: z.literal("label"), ...base, targetId: z.string().min(1), label: z.string().optional() });
export type LabelEntry = z.infer<typeof LabelEntry>;

/** Stream rules (TTSR) whose text was given to the model; a resume does not fire them again under `ttsr.repeatMode: once`. */
export const TtsrInjectionEntry = z.object({ type: z.literal("ttsr_injection"), ...base, injectedRules: z.array(z.string()) });
export type TtsrInjectionEntry = z.infer<typeof TtsrInjectionEntry>;

export const SessionEntry = z.discriminatedUnion("type", [MessageEntry, ModelChangeEntry, ThinkingLevelChangeEntry, ModeChangeEntry, CompactionEntry, CustomEntry, LabelEntry, TtsrInjectionEntry]);
export type SessionEntry = z.infer<typeof SessionEntry>;

type WithoutTreeFields<T> = T extends unknown ? Omit<T, "id" | "parentId" | "timestamp"> : never;
/** An entry as a caller hands it to the writer, which adds id, parentId and timestamp. */
export type NewSessionEntry = WithoutTreeFields<SessionEntry>;

export const ENTRY_TYPES: ReadonlySet<string> = new Set(SessionEntry.options.map((option) => option.shape.type.value));
