import { displayPath } from "../../../core/tools/paths.ts";
import type { RewindPlan, RewindResult } from "../../../core/session/checkpoints/rewind.ts";
import { formatAge } from "../../../core/session/listing.ts";
import type { RewindScope } from "../../../core/session-host/rewind.ts";
import { textBlock } from "../render/blocks.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import type { Span } from "../render/text.ts";

/**
 * `/rewind` (Claude Code's name): pick an earlier message of yours, see which files would go back
 * and which cannot, then rewind the conversation, the files, or both. `/undo`: both, for your
 * last message. Both run the session host's rewind op.
 */

const firstLine = (text: string) => {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "(empty message)";
  return line.length > 70 ? `${line.slice(0, 69)}…` : line;
};

/** The checkpoint code, or undefined (with a notice) for a session that is not saved and so has nothing to go back to. */
async function checkpoints(host: CommandHost) {
  if (!host.agent.writer) {
    host.notice("warning", "This session is not saved (--no-session), so it has no earlier turns to go back to.");
    return undefined;
  }
  return import("../../../core/session/checkpoints/rewind.ts");
}

/** The plan as the user reads it: what goes back, what was changed by someone else, what cannot. */
function showPlan(host: CommandHost, plan: RewindPlan): void {
  const shown = (path: string) => displayPath(host.cwd, path);
  host.add(
    textBlock(host.view, (theme) => {
      const lines: Span[][] = [[{ text: "Files since that message", style: theme.fg("accent", "bold") }]];
      if (plan.restore.length + plan.changedOutside.length + plan.notRestorable.length === 0) lines.push([{ text: "  none changed by omp", style: theme.fg("muted") }]);
      for (const file of plan.restore) lines.push([{ text: `  ${file.to === "absent" ? "remove " : "restore"} `, style: theme.fg("success") }, { text: shown(file.path), style: "" }]);
      for (const file of plan.changedOutside) lines.push([{ text: "  changed outside omp, left as is ", style: theme.fg("warning") }, { text: shown(file.path), style: "" }]);
      for (const item of plan.notRestorable) lines.push([{ text: "  cannot restore ", style: theme.fg("error") }, { text: `${item.path ? `${shown(item.path)}: ` : ""}${item.reason}`, style: "" }]);
      return lines;
    }),
  );
}

function report(host: CommandHost, scope: RewindScope, result: RewindResult | undefined): void {
  const parts: string[] = [];
  if (scope !== "files") parts.push("the conversation is back before that message (your next one starts a new branch)");
  if (result) {
    parts.push(`${result.restored.length} file(s) restored`);
    if (result.changedOutside.length > 0) parts.push(`${result.changedOutside.length} changed outside omp left as is (${result.changedOutside.map((f) => displayPath(host.cwd, f.path)).join(", ")})`);
    if (result.notRestorable.length > 0) parts.push(`${result.notRestorable.length} change(s) could not be restored`);
  }
  host.notice(result && (result.changedOutside.length > 0 || result.notRestorable.length > 0) ? "warning" : "success", `Rewound: ${parts.join("; ")}.`);
}

async function rewind(host: CommandHost, entryId: string, scope: RewindScope): Promise<void> {
  const outcome = await host.sessionHost.rewind(entryId, scope);
  // The transcript shows the conversation as it now stands, not the turns taken back.
  if (scope !== "files") host.blocks.showConversation(host.agent.messages, "the point before that message");
  if (outcome.text !== undefined) host.setEditorText(outcome.text);
  report(host, scope, outcome.files);
}

/**
 * `/tree` and `/branch` moving back along this branch: when omp changed files since that point
 * (before `turnId`, or after it when `after`), the user chooses whether they go back too. The
 * plan to carry out, undefined for none (nothing changed, or another branch), null when cancelled.
 */
export async function chooseFileRewind(host: CommandHost, turnId: string, after: boolean): Promise<RewindPlan | undefined | null> {
  if (!host.agent.writer) return undefined;
  const { userTurns, planRewind } = await import("../../../core/session/checkpoints/rewind.ts");
  const turns = userTurns(host.agent);
  const index = turns.findIndex((turn) => turn.entryId === turnId);
  const since = index < 0 ? undefined : turns[after ? index + 1 : index];
  if (!since) return undefined;
  const plan = planRewind(host.agent, since.entryId);
  if (plan.restore.length + plan.changedOutside.length + plan.notRestorable.length === 0) return undefined;
  showPlan(host, plan);
  const files = await host.pick<"both" | "conversation">(
    "Go back",
    [
      { label: "conversation and files", detail: `${plan.restore.length} file(s) restored`, value: "both" },
      { label: "conversation only", detail: "files stay as they are", value: "conversation" },
    ],
    false,
  );
  if (!files) return null;
  return files === "both" ? plan : undefined;
}

/** The files of a plan chosen with chooseFileRewind go back; the user reads what happened. */
export async function rewindChosenFiles(host: CommandHost, plan: RewindPlan): Promise<void> {
  const { rewindFiles } = await import("../../../core/session/checkpoints/rewind.ts");
  report(host, "files", rewindFiles(plan, host.agent.options.checkpoints?.maxBytes, host.agent.options.gate.paths));
}

export const REWIND_COMMAND: SlashCommand = {
  name: "rewind",
  description: "go back to before one of your messages: the conversation, the files omp changed, or both",
  idleOnly: true,
  async run(host) {
    const code = await checkpoints(host);
    if (!code) return;
    const { userTurns, planRewind } = code;
    const turns = userTurns(host.agent).reverse();
    if (turns.length === 0) return host.notice("info", "Nothing to rewind yet: send a message first.");
    const now = new Date();
    const entryId = await host.pick(
      "Rewind to before",
      turns.map((turn) => ({ label: firstLine(turn.text), detail: formatAge(turn.time, now), value: turn.entryId })),
    );
    if (!entryId) return;
    const plan = planRewind(host.agent, entryId);
    showPlan(host, plan);
    const files = plan.restore.length;
    const scope = await host.pick<RewindScope>(
      "Rewind",
      [
        { label: "conversation and files", detail: `${files} file(s) restored`, value: "both" },
        { label: "conversation only", detail: "files stay as they are", value: "conversation" },
        { label: "files only", detail: `${files} file(s) restored; the conversation goes on`, value: "files" },
      ],
      false,
    );
    if (scope) await rewind(host, entryId, scope);
  },
};

export const UNDO_COMMAND: SlashCommand = {
  name: "undo",
  description: "undo your last message: the conversation and the files omp changed since",
  idleOnly: true,
  async run(host) {
    const code = await checkpoints(host);
    if (!code) return;
    const { userTurns, planRewind } = code;
    const last = userTurns(host.agent).at(-1);
    if (!last) return host.notice("info", "Nothing to undo yet.");
    showPlan(host, planRewind(host.agent, last.entryId));
    await rewind(host, last.entryId, "both");
  },
};
