import type { Turn } from "../../../core/session/tree.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import { formatAge } from "../../../core/session/listing.ts";
import { SESSION_NAME_ENTRY } from "../../../core/session/name-entry.ts";
import { projectSessionDirs } from "../../../core/session/paths.ts";
import { chooseFileRewind, rewindChosenFiles } from "./rewind-commands.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";
import type { TreeAction } from "../widgets/tree-panel.ts";

/**
 * The session tree in the interactive mode: /tree and Esc Esc (move to any turn, label, fold),
 * /branch (edit an earlier message and go on from there), /fork, /handoff, /name, and /resume's
 * search. The moves themselves are SessionControl's, shared with rpc.
 */

/** Turns folded in /tree, per session file, for as long as omp runs. */
const collapsedBySession = new Map<string, Set<string>>();

/** Two presses within this long on an empty prompt open the tree. */
const DOUBLE_ESCAPE_MS = 500;
let lastEscape = 0;

/** The /handoff being written, which Esc cancels. */
let handoffRunning: AbortController | undefined;

/** Esc on an empty prompt with nothing running: cancels a /handoff being written; the second one in a row opens /tree at the current turn. */
export function escapeTwice(host: CommandHost): void {
  if (handoffRunning) {
    handoffRunning.abort();
    return;
  }
  const now = Date.now();
  if (now - lastEscape > DOUBLE_ESCAPE_MS) {
    lastEscape = now;
    return;
  }
  lastEscape = 0;
  void openTree(host, "go");
}

async function openTree(host: CommandHost, enter: TreeAction): Promise<void> {
  let loaded;
  try {
    loaded = await host.control.currentFile();
  } catch (error) {
    return host.notice("info", `No session tree: ${describeError(error)}.`);
  }
  const [{ turnTree }, { TreePanel }] = await Promise.all([import("../../../core/session/tree.ts"), import("../widgets/tree-panel.ts")]);
  const tree = turnTree(loaded, host.agent.writer?.leafId ?? null);
  if (tree.byId.size === 0) return host.notice("info", "No turns yet: the tree starts with your first message.");
  let collapsed = collapsedBySession.get(loaded.path);
  if (!collapsed) collapsedBySession.set(loaded.path, (collapsed = new Set()));
  host.openPanel(() =>
    new TreePanel(tree, enter, collapsed, {
      pick: (turn, action) => void moveToTurn(host, turn, action),
      label: (turn, label) => void host.control.label(turn.id, label).catch((error) => host.notice("error", `Could not label: ${describeError(error)}`)),
      changed: () => host.requestRender(),
    }),
  );
}

/**
 * Where the conversation goes back to an earlier turn: after it ("go"), or before it with its
 * message in the editor ("edit"). The next message starts a new branch there.
 */
async function moveToTurn(host: CommandHost, turn: Turn, action: TreeAction): Promise<void> {
  if (action === "go" && turn.endId === host.agent.writer?.leafId) return host.notice("info", "Already at this point.");
  try {
    const files = await chooseFileRewind(host, turn.id, action === "go");
    if (files === null) return;
    if (files) await rewindChosenFiles(host, files);
    const { agent, text } = await host.control.navigate(action === "go" ? turn.endId : turn.id);
    host.blocks.showConversation(agent.messages, action === "go" ? `the turn "${turn.text.slice(0, 40)}"` : `the point before "${turn.text.slice(0, 40)}"`);
    if (text !== undefined) host.editor.setText(text);
    host.notice("info", "Your next message starts a new branch here; /tree shows every branch.");
  } catch (error) {
    host.notice("error", describeError(error));
  }
}

export const TREE_COMMANDS: SlashCommand[] = [
  {
    name: "tree",
    description: "the session's branches: go back to any turn, label, fold (esc esc)",
    idleOnly: true,
    run: (host) => openTree(host, "go"),
  },
  {
    name: "branch",
    description: "edit an earlier message and go on from there on a new branch",
    idleOnly: true,
    run: (host) => openTree(host, "edit"),
  },
  {
    name: "fork",
    description: "continue in a copy of this session; the original stays as it is",
    idleOnly: true,
    async run(host) {
      const from = host.agent.writer?.header.id;
      const { agent } = await host.control.fork();
      host.notice("success", `Forked into ${displayPath(agent.writer!.path)}. The original (${from?.slice(0, 8)}) stays as it was: omp -r ${from?.slice(0, 8)}.`);
    },
  },
  {
    name: "handoff",
    description: "a model-written brief of this session starts a fresh one",
    args: "[goal]",
    idleOnly: true,
    async run(host, args) {
      const from = host.agent.writer?.header.id;
      host.setActivity("Writing the handoff brief (esc to cancel)");
      const controller = (handoffRunning = new AbortController());
      try {
        const { agent } = await host.control.handoff(args || undefined, controller.signal);
        host.blocks.showConversation(agent.messages, "the handoff brief");
        host.notice("success", `New session ${agent.writer!.header.id.slice(0, 8)} started from a brief of ${from?.slice(0, 8)}.`);
      } catch (error) {
        if (!controller.signal.aborted) throw error;
        host.notice("info", "Handoff cancelled; the session goes on as it was.");
      } finally {
        handoffRunning = undefined;
        host.setActivity(undefined);
      }
    },
  },
  {
    name: "name",
    description: "name this session (shown by /resume and omp -r)",
    args: "<name>",
    async run(host, args) {
      if (!args) {
        const entries = await host.control.currentFile("name").then((loaded) => loaded.entries, () => []);
        const named = entries.findLast((entry) => entry.type === "custom" && entry.customType === SESSION_NAME_ENTRY);
        const name = (named?.type === "custom" && (named.data as { name?: unknown })?.name) || undefined;
        return host.notice("info", typeof name === "string" ? `This session is named "${name}". /name <name> renames it.` : "Usage: /name <name>");
      }
      host.control.setSessionName(args);
      host.notice("success", `Session named "${args.trim()}".`);
    },
  },
];

/** This project's session files' dir. */
/** The dirs holding this project's sessions: omp's and the original omp's (see projectSessionDirs). */
export function sessionDirs(host: CommandHost): string[] {
  const options = host.control.sessionDirOptions();
  return projectSessionDirs(options.cwd, options);
}

/** `/resume <text>`: the project's sessions matching the text (fuzzy), to pick from. */
export async function resumeMatching(host: CommandHost, query: string): Promise<void> {
  const { searchSessions } = await import("../../../core/session/listing.ts");
  const current = host.agent.writer?.path;
  const matches = searchSessions(sessionDirs(host), query).filter((match) => match.info.path !== current);
  if (matches.length === 0) return host.notice("info", `No other session of this project mentions "${query}".`);
  const now = new Date();
  const path = await host.pick(
    `Sessions matching "${query}"`,
    matches.slice(0, 50).map(({ info, snippet }) => ({ label: info.name ?? info.title, detail: `${formatAge(info.modified, now)} · ${snippet}`, value: info.path })),
  );
  if (path) await host.switchSession(path);
}
