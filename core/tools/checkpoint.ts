import { declared } from "./declare.ts";
import { checkpoint as checkpointDeclaration, rewind as rewindDeclaration } from "./declarations/checkpoint.ts";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { type ChangePreview, MAX_PREVIEW_BYTES } from "./change-preview.ts";
import { unifiedDiff } from "./diff.ts";
import { authorizeWrites } from "./file-writes.ts";
import { errorResult, textResult } from "./format.ts";
import { plural } from "../plural.ts";
import { displayPath } from "./paths.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";

/**
 * The model's `checkpoint {goal}` and `rewind {report}` (the original omp's names): a mark before
 * a risky change, and a return to it. Beyond the original, which only drops the conversation
 * since the mark, the files omp changed since (the session's checkpoint journal: file tools,
 * commands seen by git snapshots) go back too, under the same approval as any write; the agent
 * then cuts the conversation back to the mark and keeps the report (core/agent/model-checkpoint.ts).
 */

interface ActiveCheckpoint {
  goal: string;
  startedAt: string;
  /** The session's checkpoint journal length then (undefined: files not tracked, no session). */
  mark?: number;
}

const active = new WeakMap<object, ActiveCheckpoint>();

const SUBAGENT = "Checkpoint not available in subagents.";
const inSubagent = (context: ToolContext) => (context.subagents?.depth ?? 0) > 0;
const scopeOf = (context: ToolContext) => context.jobScope;

export interface CheckpointDetails {
  goal: string;
  startedAt: string;
  filesTracked: boolean;
}

const checkpointSchema = z.object({ goal: z.string().describe("What you are about to try") });

export const checkpointTool: ToolDefinition<typeof checkpointSchema, CheckpointDetails> = {
  ...declared(checkpointDeclaration),
  schema: checkpointSchema,
  async execute(input, context) {
    const scope = scopeOf(context);
    if (inSubagent(context) || !scope) return errorResult(SUBAGENT);
    if (active.has(scope)) return errorResult("Checkpoint already active.");
    const { journalMark } = await import("../session/checkpoints/rewind.ts");
    const startedAt = new Date().toISOString();
    const mark = context.checkpoints ? journalMark(context.checkpoints.session) : undefined;
    active.set(scope, { goal: input.goal, startedAt, ...(mark !== undefined ? { mark } : {}) });
    const files = mark === undefined ? "\n(This session is not saved, so files are not tracked: rewind returns the conversation only.)" : "";
    return textResult(`Checkpoint created.\nGoal: ${input.goal}\nRun your investigation, then call rewind with a concise report.${files}`, { goal: input.goal, startedAt, filesTracked: mark !== undefined });
  },
};

export interface RewindDetails {
  report: string;
  rewound: true;
  restored: string[];
  changedOutside: string[];
  notRestorable: { path?: string; reason: string }[];
}

const rewindSchema = z.object({ report: z.string().describe("What you found; kept after the rewind") });

async function planOf(context: ToolContext) {
  const scope = scopeOf(context);
  const checkpoint = scope ? active.get(scope) : undefined;
  if (!checkpoint || checkpoint.mark === undefined || !context.checkpoints) return { checkpoint, plan: undefined };
  const { planSinceMark } = await import("../session/checkpoints/rewind.ts");
  return { checkpoint, plan: planSinceMark(context.checkpoints, checkpoint.mark) };
}

export const rewindTool: ToolDefinition<typeof rewindSchema, RewindDetails> = {
  ...declared(rewindDeclaration),
  schema: rewindSchema,
  async execute(input, context) {
    if (inSubagent(context) || !scopeOf(context)) return errorResult(SUBAGENT);
    const report = input.report.trim();
    const { checkpoint, plan } = await planOf(context);
    if (!checkpoint) return errorResult("No active checkpoint.");
    if (report === "") return errorResult("Report cannot be empty.");
    const details: RewindDetails = { report, rewound: true, restored: [], changedOutside: [], notRestorable: [] };
    if (plan) {
      await authorizeWrites(context, plan.restore.map((file) => file.path));
      const { rewindFiles } = await import("../session/checkpoints/rewind.ts");
      const result = rewindFiles(plan, context.checkpoints?.maxBytes, context.paths);
      details.restored = result.restored;
      details.changedOutside = result.changedOutside.map((file) => file.path);
      details.notRestorable = result.notRestorable;
    }
    active.delete(scopeOf(context)!);
    const shown = (paths: string[]) => paths.map((path) => displayPath(context.cwd, path)).join(", ");
    const lines = ["Rewind requested.", "Report captured for context replacement."];
    if (details.restored.length > 0) lines.push(`Restored ${plural(details.restored.length, "file")}: ${shown(details.restored)}.`);
    else if (plan) lines.push("No file omp changed since the checkpoint needed restoring.");
    if (details.changedOutside.length > 0) lines.push(`Left alone (changed outside omp since): ${shown(details.changedOutside)}.`);
    for (const item of details.notRestorable) lines.push(`Not restored${item.path ? ` ${displayPath(context.cwd, item.path)}` : ""}: ${item.reason}.`);
    return textResult(lines.join("\n"), details);
  },
  async preview(input, context) {
    const { plan } = await planOf(context);
    if (!plan || input.report.trim() === "") return undefined;
    const { BlobStore, checkpointDir } = await import("../session/checkpoints/store.ts");
    const store = new BlobStore(checkpointDir(plan.session), Number.POSITIVE_INFINITY);
    const changes: ChangePreview[] = [];
    let bytes = 0;
    for (const file of plan.restore) {
      const shown = displayPath(context.cwd, file.path);
      // The plan holds what omp left there; the restore goes ahead only while the disk still does.
      const oldText = file.expected === "absent" ? null : readFileSync(file.path, "utf8");
      const newText = file.to === "absent" ? null : (store.get(file.to)?.toString("utf8") ?? null);
      bytes += (oldText?.length ?? 0) + (newText?.length ?? 0);
      if (bytes > MAX_PREVIEW_BYTES) return undefined;
      const diff = unifiedDiff(oldText ?? "", newText ?? "", shown);
      const op = newText === null ? "delete" : oldText === null ? "create" : "update";
      changes.push({ path: file.path, shown, op, oldText, newText, diff: diff.text, added: diff.added, removed: diff.removed });
    }
    return changes;
  },
};
