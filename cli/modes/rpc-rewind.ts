import type { SessionHost } from "../../core/session-host/host.ts";
import { planSessionRewind } from "../../core/session-host/rewind.ts";

/** rpc `rewind`: the host's rewind op (or, with dryRun, its plan of the files), answered with what happened. */
export async function rpcRewind(host: SessionHost, command: { entryId: string; scope?: "conversation" | "files" | "both"; dryRun?: boolean }): Promise<unknown> {
  if (command.dryRun) {
    const plan = await planSessionRewind(host, command.entryId);
    return { restore: plan.restore.map((file) => file.path), changedOutside: plan.changedOutside, notRestorable: plan.notRestorable };
  }
  const outcome = await host.rewind(command.entryId, command.scope ?? "both");
  return { ...outcome, sessionFile: host.agent.writer?.path, messageCount: host.agent.messages.length };
}
