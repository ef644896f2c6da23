import { bankScope, memoryDbPath, memoryEnabled, memoryOff } from "../../../core/memory/banks.ts";
import { plural } from "../../../core/plural.ts";
import { displayPath } from "../../../core/paths.ts";
import { textBlock } from "../render/blocks.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";

const USAGE = "/memory [view|stats|diagnose|rebuild|edit <id> <text>|forget <id>|clear]";
/** The picker shows this many, newest first; the rest are reached through memory://root/MEMORY.md or by id. */
const PICKER_ROWS = 500;

/**
 * `/memory`: the project's long-term memories (the local backend's store). Without arguments a
 * picker lists them, and the one picked is edited (its text goes into the editor as `/memory edit`)
 * or forgotten; `view` shows the newest as a first prompt brings them, `stats` the banks, `diagnose` checks the
 * file and its search index, `rebuild` (the original's `enqueue`) builds the index again, `clear`
 * (`reset`) deletes the project's bank after asking.
 */
export const MEMORY_COMMAND: SlashCommand = {
  name: "memory",
  description: "long-term memories: list, edit, forget; view, stats, diagnose, rebuild, clear",
  args: "[view|stats|diagnose|rebuild|edit|forget|clear]",
  async run(host: CommandHost, args: string) {
    const { settings, env } = host.runtime.options;
    if (!memoryEnabled(settings)) return host.notice("info", memoryOff(settings));
    const { MemoryStore, MemoryError } = await import("../../../core/memory/store.ts");
    const scope = bankScope(settings, host.cwd);
    const path = memoryDbPath(settings, env as NodeJS.ProcessEnv);
    const [action = "", idText = "", ...rest] = args.trim().split(/\s+/);
    const id = Number(idText);
    try {
      if (action === "") return await pickMemory(host, path, scope.recall);
      if (action === "view") {
        const { memoryBlockOf } = await import("../../../core/memory/session-block.ts");
        const block = MemoryStore.using(path, (store) => memoryBlockOf(store, settings, host.cwd));
        return host.add(textBlock(host.view, (theme) => (block ?? "No memories are stored for this project yet.").split("\n").map((line) => [{ text: line, style: theme.fg("muted") }])));
      }
      if (action === "stats") {
        const counts = MemoryStore.using(path, (store) => scope.recall.map((bank) => `${bank}: ${plural(store.count(bank), "memory", "memories")}`));
        return host.notice("info", `${displayPath(path)} (scoping ${settings.mnemopi.scoping}) · ${counts.join(" · ")}`);
      }
      if (action === "diagnose") {
        const problems = MemoryStore.using(path, (store) => store.diagnose());
        return problems.length === 0 ? host.notice("success", `${displayPath(path)}: the file and its search index are sound.`) : host.notice("warning", `${displayPath(path)}: ${problems.join("; ")}`);
      }
      if (action === "rebuild" || action === "enqueue") {
        MemoryStore.using(path, (store) => store.rebuild());
        return host.notice("success", "Rebuilt the memory search index.");
      }
      if (action === "forget" && Number.isInteger(id)) {
        MemoryStore.using(path, (store) => store.forget(scope.recall, id));
        return host.notice("success", `Forgot memory ${id}.`);
      }
      if (action === "edit" && Number.isInteger(id) && rest.length > 0) {
        const text = host.agent.redact(args.trim().replace(/^edit\s+\S+\s+/, ""));
        MemoryStore.using(path, (store) => store.update(scope.recall, id, text));
        return host.notice("success", `Memory ${id} now reads: ${text}`);
      }
      if (action === "clear" || action === "reset") {
        const count = MemoryStore.using(path, (store) => store.count(scope.retain));
        if (count === 0) return host.notice("info", "The bank is empty already.");
        const sure = await host.pick(`Delete all ${plural(count, "memory", "memories")} of bank ${scope.retain}?`, [
          { label: "No, keep them", value: false },
          { label: "Yes, delete them", value: true },
        ]);
        if (!sure) return host.notice("info", "Nothing was deleted.");
        const deleted = MemoryStore.using(path, (store) => store.clear([scope.retain]));
        return host.notice("success", `Deleted ${plural(deleted, "memory", "memories")} of bank ${scope.retain}.`);
      }
      host.notice("warning", `Usage: ${USAGE}`);
    } catch (error) {
      if (error instanceof MemoryError) return host.notice("warning", error.message);
      throw error;
    }
  },
};

async function pickMemory(host: CommandHost, path: string, banks: string[]): Promise<void> {
  const { MemoryStore } = await import("../../../core/memory/store.ts");
  const memories = MemoryStore.using(path, (store) => store.list(banks, PICKER_ROWS));
  if (memories.length === 0) return host.notice("info", "No memories are stored for this project yet. The model stores them with retain.");
  const picked = await host.pick(
    `Memories (${memories.length})`,
    memories.map((memory) => ({ label: memory.content.replace(/\s+/g, " "), detail: `#${memory.id} · ${new Date(memory.updated).toISOString().slice(0, 10)}`, value: memory })),
    true,
  );
  if (!picked) return;
  const what = await host.pick(`memory ${picked.id}`, [
    { label: "edit it", value: "edit" },
    { label: "forget it", value: "forget" },
  ]);
  if (what === "edit") return host.setEditorText(`/memory edit ${picked.id} ${picked.content.replace(/\s+/g, " ")}`);
  if (what === "forget") {
    MemoryStore.using(path, (store) => store.forget(banks, picked.id));
    host.notice("success", `Forgot memory ${picked.id}: ${picked.content.replace(/\s+/g, " ")}`);
  }
}
