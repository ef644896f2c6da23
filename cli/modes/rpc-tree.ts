import { textOf } from "../../core/ai/transcript.ts";
import type { RpcCommand } from "../../core/rpc/protocol.ts";
import type { SessionHost } from "../../core/session-host/host.ts";

type TreeCommand = Extract<RpcCommand, { type: "get_tree" | "navigate" | "get_branch_messages" | "set_label" | "fork" | "handoff" }>;

/** rpc's session-tree commands over the host; the response's data. */
export async function treeCommand(host: SessionHost, command: TreeCommand): Promise<unknown> {
  const control = host.sessionControl;
  switch (command.type) {
    case "get_tree": {
      const loaded = await control.currentFile();
      const { treeNodes } = await import("../../core/session/tree.ts");
      return { leafId: host.agent.writer?.leafId ?? null, nodes: treeNodes(loaded) };
    }
    case "navigate": {
      const { agent, leafId, text } = await host.navigate(command.entryId);
      return { leafId, ...(text === undefined ? {} : { text }), messageCount: agent.messages.length, sessionFile: agent.writer?.path };
    }
    case "get_branch_messages": {
      // The user messages of the current branch: the points `branch` can go back to.
      const loaded = await control.currentFile();
      const { branchEntries } = await import("../../core/session/loader.ts");
      const messages = branchEntries(loaded, host.agent.writer?.leafId ?? null).flatMap((entry) =>
        entry.type === "message" && entry.message.role === "user" ? [{ entryId: entry.id, text: textOf(entry.message.content) }] : [],
      );
      return { messages };
    }
    case "set_label":
      await host.submit({ type: "set_label", entryId: command.entryId, label: command.label ?? "" });
      return undefined;
    case "fork": {
      const previous = host.agent.writer?.path;
      await host.submit({ type: "fork" });
      return { sessionFile: host.agent.writer?.path, parentSession: previous, messageCount: host.agent.messages.length };
    }
    case "handoff": {
      const { agent, brief, path } = await host.handoff(command.customInstructions);
      return { document: brief, sessionFile: path, messageCount: agent.messages.length };
    }
  }
}
