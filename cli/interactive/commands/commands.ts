import { writeFileSync } from "node:fs";
import type { Settings } from "../../../core/config/settings-schema.ts";
import { resolve } from "node:path";
import type { ModelSelection, Runtime } from "../../../core/agent/runtime.ts";
import { type Model, THINKING_LEVELS, isThinkingLevel } from "../../../core/ai/model.ts";
import type { Message } from "../../../core/ai/messages.ts";
import { describeError } from "../../../core/errors/omp-error.ts";
import { displayPath } from "../../../core/paths.ts";
import { formatAge, listSessions } from "../../../core/session/listing.ts";
import { type NoticeKind, textBlock } from "../render/blocks.ts";
import type { CommandInfo } from "./completion.ts";
import { toHtml, toMarkdown } from "../render/export.ts";
import { FIXED_KEYS } from "../terminal/hotkeys.ts";
import { extensionHelpLines, extensionsCommand } from "./extension-commands.ts";
import type { Keymap } from "../terminal/keybindings.ts";
import { LSP_COMMAND } from "./lsp-command.ts";
import { MCP_COMMAND } from "./mcp-commands.ts";
import { JOBS_COMMAND } from "./job-commands.ts";
import { MEMORY_COMMAND } from "./memory-command.ts";
import { REWIND_COMMAND, UNDO_COMMAND } from "./rewind-commands.ts";
import { STATS_COMMAND, USAGE_COMMAND } from "./usage-ui.ts";
import { PLAN_COMMAND } from "./mode-commands.ts";
import { COLLAB_COMMAND, JOIN_COMMAND, LEAVE_COMMAND } from "./collab-commands.ts";
import type { CollabLink } from "../../../core/collab/link.ts";
import type { SessionHost, SessionView } from "../../../core/session-host/host.ts";
import { SETTINGS_COMMAND } from "./settings-command.ts";
import type { Choice } from "../widgets/select-list.ts";
import type { Panel } from "../widgets/panel.ts";
import { formatCost, formatTokens } from "../widgets/status-line.ts";
import type { Span } from "../render/text.ts";
import type { Theme } from "../render/theme.ts";
import type { Block } from "../render/transcript.ts";
import type { View } from "../render/blocks.ts";
import { pluginCommand } from "./plugin-command.ts";
import type { SessionControl } from "../../../core/agent/session-control.ts";
import type { ConversationBlocks } from "../render/conversation-blocks.ts";
import type { PromptEditor } from "../widgets/prompt-editor.ts";
import { TREE_COMMANDS, resumeMatching, sessionDirs } from "./tree-commands.ts";

export { escapeTwice } from "./tree-commands.ts";

/** What slash commands may do to the interactive session. */
export interface CommandHost {
  readonly view: View;
  /** After /settings wrote a file: applies the settings that change in place (theme, approvalMode). */
  settingsChanged(before: Pick<Settings, "approvalMode">): void;
  /** Session moves (tree, fork, handoff, name), shared with rpc. */
  readonly control: SessionControl;
  readonly blocks: ConversationBlocks;
  readonly editor: PromptEditor;
  requestRender(): void;
  readonly keymap: Keymap;
  readonly runtime: Runtime;
  /** The session's state; prompts, steering and model switches go through sessionHost.submit. */
  readonly agent: SessionView;
  readonly selection: ModelSelection;
  readonly cwd: string;
  /** The session host the app drives (modes). */
  readonly options: { readonly host: SessionHost };
  add(block: Block): void;
  notice(kind: NoticeKind, text: string): void;
  /** A transient "… doing this" in the status line; undefined clears it. */
  setActivity(text: string | undefined): void;
  pick<T>(title: string, choices: Choice<T>[], filterable?: boolean): Promise<T | undefined>;
  setModel(selection: ModelSelection): void;
  /** The whole conversation of the session's branch, compacted turns included. */
  conversation(): Promise<Message[]>;
  /** A fresh session, or the one in `resumePath`. */
  switchSession(resumePath?: string): Promise<void>;
  compact(instructions?: string): Promise<void>;
  copyToClipboard(text: string): void;
  /** The session as every front end drives it (the rewind op). */
  readonly sessionHost: SessionHost;
  setEditorText(text: string): void;
  /** Shows a panel in place of the editor until it closes (a job's live output, the settings); `changed` redraws it. */
  openPanel(make: (changed: () => void) => Panel): void;
  /** /join: this terminal shows a shared session as its guest until the guest leaves. */
  joinAsGuest(link: CollabLink, name: string): Promise<void>;
  exit(): void;
}

export interface SlashCommand extends CommandInfo {
  /** Refused while the agent works (it would change the conversation under it). */
  idleOnly?: boolean;
  run(host: CommandHost, args: string): void | Promise<void>;
}

const modelId = (model: Model) => `${model.provider}/${model.id}`;

/** Where /help's descriptions start. */
const HELP_COLUMN = 32;

export const COMMANDS: SlashCommand[] = [
  {
    name: "help",
    description: "commands and tips",
    run(host) {
      host.add(
        textBlock(host.view, (theme) => [
          [{ text: "Commands", style: theme.fg("accent", "bold") }],
          ...COMMANDS.flatMap((c): Span[][] => {
            const usage = `  /${c.name}${c.args ? ` ${c.args}` : ""}`;
            const description = { text: c.description, style: theme.fg("muted") };
            // A usage too long for the column gets a row of its own; the description stays in the column below it.
            if (usage.length >= HELP_COLUMN) return [[{ text: usage, style: theme.fg("accent") }], [{ text: " ".repeat(HELP_COLUMN), style: "" }, description]];
            return [[{ text: usage.padEnd(HELP_COLUMN), style: theme.fg("accent") }, description]];
          }),
          ...extensionHelpLines(theme, host.runtime.extensions, COMMANDS),
          [],
          [{ text: "Tips", style: theme.fg("accent", "bold") }],
          tip(theme, "@path", "attach a file (Tab completes)"),
          tip(theme, "!command", "run a shell command; its output goes with your next message (!!command keeps it out)"),
          tip(theme, "enter / alt+enter", "while the agent works: steer it / queue a follow-up"),
          tip(theme, "/hotkeys", "every key"),
        ]),
      );
    },
  },
  {
    name: "model",
    description: "pick the model",
    args: "[name]",
    async run(host, args) {
      if (args) return chooseModel(host, args);
      host.setActivity("Looking for models");
      // Models whose provider has a key or login (or a running local server): the cloud accounts' copies of
      // every Claude model would otherwise crowd the list for everyone without those accounts.
      const models = await host.runtime.cycleCandidates().finally(() => host.setActivity(undefined));
      const current = modelId(host.agent.model);
      const choices = models.map((m) => ({
        label: modelId(m),
        detail: `${m.name} · ${formatTokens(m.contextWindow)} context${m.reasoning ? " · thinking" : ""}`,
        value: modelId(m),
        current: modelId(m) === current,
      }));
      const picked = await host.pick("Model", choices);
      if (picked) await chooseModel(host, picked);
    },
  },
  {
    name: "thinking",
    description: "set the thinking level",
    args: "[level]",
    async run(host, args) {
      if (!host.agent.model.reasoning) {
        host.notice("warning", `${modelId(host.agent.model)} has no thinking levels.`);
        return;
      }
      let level: string | undefined = args;
      if (!level) {
        const choices = THINKING_LEVELS.map((l) => ({ label: l, value: l, current: l === host.agent.thinking }));
        level = await host.pick("Thinking level", choices, false);
        if (!level) return;
      }
      if (!isThinkingLevel(level)) {
        host.notice("error", `Unknown thinking level "${level}"; one of ${THINKING_LEVELS.join(", ")}.`);
        return;
      }
      await host.sessionHost.submit({ type: "set_thinking", level });
      host.notice("success", `Thinking: ${level}`);
    },
  },
  {
    name: "new",
    description: "start a new session",
    idleOnly: true,
    run(host) {
      return host.switchSession();
    },
  },
  {
    name: "resume",
    description: "resume a recent session; with text, find one by what was said in it",
    args: "[text]",
    idleOnly: true,
    async run(host, args) {
      if (args) return resumeMatching(host, args);
      const current = host.agent.writer?.path;
      const sessions = listSessions(sessionDirs(host), { limit: 50 }).filter((s) => s.path !== current);
      const { importableSessions, importSession } = await import("../../../core/session/importable.ts");
      const options = host.control.sessionDirOptions();
      const importable = importableSessions(options.cwd, options.env);
      if (sessions.length === 0 && importable.length === 0) {
        host.notice("info", "No other sessions in this directory yet.");
        return;
      }
      const now = new Date();
      const choices = [
        ...sessions.map((s) => ({
          label: s.title,
          detail: `${formatAge(s.modified, now)} · ${s.messageCount} messages${s.branches > 1 ? ` · ${s.branches} branches` : ""} · ${s.id.slice(0, 8)}`,
          value: s.path,
        })),
        // Claude Code's and Codex's sessions of the project: picked, they are copied into a new omp session.
        ...importable.map((found, index) => ({ label: found.title, detail: `${formatAge(found.modified, now)} · from ${found.from}, imported when picked`, value: `import:${index}` })),
      ];
      const picked = await host.pick("Resume a session", choices);
      if (!picked) return;
      const foreign = picked.startsWith("import:") ? importable[Number(picked.slice("import:".length))] : undefined;
      await host.switchSession(foreign ? importSession(foreign, { ...options, noSession: false }) : picked);
    },
  },
  {
    name: "session",
    description: "id, file, usage and cost of this session",
    run(host) {
      const { agent } = host;
      const usage = agent.usage;
      const context = agent.contextTokens();
      const percent = Math.round((context / agent.model.contextWindow) * 100);
      const rows: [string, string][] = [
        ["id", agent.writer?.header.id ?? "(not saved: --no-session)"],
        ["file", agent.writer ? displayPath(agent.writer.path) : "-"],
        ["model", `${modelId(agent.model)}${agent.model.reasoning ? ` (thinking ${agent.thinking})` : ""}`],
        ["messages", String(agent.messages.length)],
        ["tokens", `${formatTokens(usage.input)} in · ${formatTokens(usage.output)} out · ${formatTokens(usage.cacheRead)} cache read · ${formatTokens(usage.cacheWrite)} cache write`],
        ["cost", formatCost(usage.cost.total)],
        ["context", `${formatTokens(context)} of ${formatTokens(agent.model.contextWindow)} (${percent}%)`],
      ];
      host.add(
        textBlock(host.view, (theme) => [
          [{ text: "Session", style: theme.fg("accent", "bold") }],
          ...rows.map(([k, v]): Span[] => [
            { text: `  ${k.padEnd(10)}`, style: theme.fg("muted") },
            { text: v, style: "" },
          ]),
        ]),
      );
    },
  },
  {
    name: "compact",
    description: "summarise older messages to free context",
    args: "[instructions]",
    idleOnly: true,
    run(host, args) {
      return host.compact(args || undefined);
    },
  },
  {
    name: "export",
    description: "write the conversation to an HTML file (as rpc export_html does), or Markdown when the name ends in .md",
    args: "[file.html|file.md]",
    async run(host, args) {
      const id = host.agent.writer?.header.id ?? "unsaved";
      const name = args || `omp-session-${id.slice(0, 8)}.html`;
      const path = resolve(host.cwd, name);
      const info = { sessionId: id, model: modelId(host.agent.model), cwd: host.cwd, date: new Date() };
      const html = /\.html?$/i.test(path);
      // The whole conversation, also the turns a compaction summarised for the model.
      const messages = await host.conversation();
      try {
        writeFileSync(path, html ? toHtml(messages, info) : toMarkdown(messages, info));
      } catch (error) {
        host.notice("error", `Could not write ${displayPath(path)}: ${describeError(error)}`);
        return;
      }
      host.notice("success", `Exported ${messages.length} messages to ${displayPath(path)} (${html ? "HTML" : "Markdown"})`);
    },
  },
  {
    name: "copy",
    description: "copy the last answer to the clipboard",
    run(host) {
      const last = [...host.agent.messages].reverse().find((m) => m.role === "assistant" && m.content.some((c) => c.type === "text" && c.text.trim()));
      if (!last || last.role !== "assistant") {
        host.notice("info", "There is no answer to copy yet.");
        return;
      }
      const text = last.content.map((c) => (c.type === "text" ? c.text : "")).filter(Boolean).join("\n\n");
      host.copyToClipboard(text);
      host.notice("success", `Copied the last answer (${text.length} characters) to the clipboard.`);
    },
  },
  {
    name: "hotkeys",
    description: "every key and what it does",
    run(host) {
      host.add(
        textBlock(host.view, (theme) => [
          [{ text: "Keys", style: theme.fg("accent", "bold") }, { text: "  (remap the first group in ~/.omp/agent/keybindings.yml)", style: theme.fg("dim") }],
          ...[...host.keymap.describe(), ...FIXED_KEYS].map(([keys, what]): Span[] => [
            { text: `  ${keys}`.padEnd(32), style: theme.fg("accent") },
            { text: what, style: theme.fg("muted") },
          ]),
        ]),
      );
    },
  },
  ...TREE_COMMANDS,
  extensionsCommand,
  pluginCommand,
  MCP_COMMAND,
  JOBS_COMMAND,
  MEMORY_COMMAND,
  PLAN_COMMAND,
  COLLAB_COMMAND,
  JOIN_COMMAND,
  LEAVE_COMMAND,
  SETTINGS_COMMAND,
  LSP_COMMAND,
  REWIND_COMMAND,
  UNDO_COMMAND,
  USAGE_COMMAND,
  STATS_COMMAND,
  {
    name: "exit",
    description: "leave omp (ctrl+d, or ctrl+c twice)",
    run(host) {
      host.exit();
    },
  },
  // Loaded on use: the vault (bun:sqlite) and the OAuth flows stay off the interactive mode's start-up.
  {
    name: "login",
    description: "log in with a subscription (Claude Pro/Max, ChatGPT, Copilot, Gemini)",
    args: "[provider]",
    async run(host, args) {
      return (await import("./login-commands.ts")).runLogin(host, args);
    },
  },
  {
    name: "logout",
    description: "log out of a subscription",
    args: "[provider]",
    async run(host, args) {
      return (await import("./login-commands.ts")).runLogout(host, args);
    },
  },
];

/** Aliases users type from habit; not listed, not completed. */
const ALIASES: Record<string, string> = { quit: "exit", q: "exit", clear: "new", h: "help", "?": "help", keys: "hotkeys", plugins: "plugin", marketplace: "plugin" };

function tip(theme: Theme, what: string, why: string): Span[] {
  return [
    { text: `  ${what}`.padEnd(32), style: theme.fg("accent") },
    { text: why, style: theme.fg("muted") },
  ];
}

async function chooseModel(host: CommandHost, pattern: string): Promise<void> {
  try {
    const selection = await host.runtime.selectModel(pattern, false);
    host.setModel(selection);
    host.notice("success", `Model: ${modelId(selection.model)}`);
    if (selection.warning) host.notice("warning", selection.warning);
  } catch (error) {
    host.notice("error", describeError(error));
  }
}

/** The command for `/name args`, following aliases; undefined for text that is not a command. */
export function findCommand(name: string): SlashCommand | undefined {
  const wanted = ALIASES[name] ?? name;
  return COMMANDS.find((c) => c.name === wanted);
}

/** The closest command name (edit distance at most 2, or a prefix), for "did you mean". */
export function suggestCommand(name: string): string | undefined {
  const prefixed = COMMANDS.find((c) => c.name.startsWith(name) && name.length > 0);
  if (prefixed) return prefixed.name;
  let best: { name: string; distance: number } | undefined;
  for (const command of COMMANDS) {
    const distance = editDistance(name, command.name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: command.name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length]!;
}
