import { textOf } from "../../../core/ai/transcript.ts";
import { planSessionRewind } from "../../../core/session-host/rewind.ts";
import type { RpcContext, RpcHandlers } from "./context.ts";

/** The user messages of the current branch: the points `branch` and `rewind` can go back to. */
async function branchMessages(rpc: RpcContext) {
  const loaded = await rpc.host.sessionControl.currentFile();
  const { branchEntries } = await import("../../../core/session/loader.ts");
  return branchEntries(loaded, rpc.host.view.writer?.leafId ?? null).flatMap((entry) =>
    entry.type === "message" && entry.message.role === "user" ? [{ entryId: entry.id, text: textOf(entry.message.content) }] : [],
  );
}

/**
 * Commands on the session's tree and what hangs off it: reading and moving through the tree,
 * labels, fork, handoff, rewind (files too), and the session host's mode and question answers.
 */
export const TREE_COMMANDS = {
  async get_tree(rpc, { id }) {
    const loaded = await rpc.host.sessionControl.currentFile();
    const { treeNodes } = await import("../../../core/session/tree.ts");
    return rpc.respond("get_tree", id, { leafId: rpc.host.view.writer?.leafId ?? null, nodes: treeNodes(loaded) });
  },
  async navigate(rpc, { id, entryId }) {
    const { agent, leafId, text } = await rpc.host.navigate(entryId);
    return rpc.respond("navigate", id, { leafId, ...(text === undefined ? {} : { text }), messageCount: agent.messages.length, sessionFile: agent.writer?.path });
  },
  async get_branch_messages(rpc, { id }) {
    return rpc.respond("get_branch_messages", id, { messages: await branchMessages(rpc) });
  },
  async set_label(rpc, { id, entryId, label }) {
    await rpc.host.submit({ type: "set_label", entryId, label: label ?? "" });
    return rpc.respond("set_label", id);
  },
  async fork(rpc, { id }) {
    const previous = rpc.host.view.writer?.path;
    await rpc.host.submit({ type: "fork" });
    const agent = rpc.host.view;
    return rpc.respond("fork", id, { sessionFile: agent.writer?.path, parentSession: previous, messageCount: agent.messages.length });
  },
  async handoff(rpc, { id, customInstructions }) {
    // A model call: answered when it ends, while abort and the rest keep working.
    rpc.later("handoff", id, async () => {
      const { agent, brief, path } = await rpc.host.handoff(customInstructions);
      return { document: brief, sessionFile: path, messageCount: agent.messages.length };
    });
  },
  async rewind(rpc, { id, entryId, scope, dryRun }) {
    if (dryRun) {
      const plan = await planSessionRewind(rpc.host, entryId);
      return rpc.respond("rewind", id, { restore: plan.restore.map((file) => file.path), changedOutside: plan.changedOutside, notRestorable: plan.notRestorable });
    }
    const outcome = await rpc.host.rewind(entryId, scope ?? "both");
    return rpc.respond("rewind", id, { ...outcome, sessionFile: rpc.host.view.writer?.path, messageCount: rpc.host.view.messages.length });
  },
  async set_mode(rpc, { id, mode }) {
    await rpc.host.submit({ type: "set_mode", mode });
    return rpc.respond("set_mode", id, { mode: rpc.host.mode });
  },
  async answer_question(rpc, { id, questionId, answers, plan }) {
    await rpc.host.submit({ type: "answer_question", id: questionId, ...(answers ? { answers } : {}), ...(plan !== undefined ? { plan } : {}) });
    return rpc.respond("answer_question", id, { mode: rpc.host.mode });
  },
} satisfies RpcHandlers;
