import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";
import { expandMentions } from "./mentions.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import { OmpError } from "../errors/omp-error.ts";
import { displayPath } from "../paths.ts";
import { noteSkippedForTrust, untrustedNotice } from "../trust/folder-trust.ts";
import { bashAllowed } from "../permissions/rules.ts";
import { splitArgs } from "./args.ts";
import { type MarkdownCommand, readCommandBody } from "./commands.ts";
import type { Extensions } from "./extensions.ts";
import type { ProvidedCommand } from "./provided.ts";
import { type Skill, readSkillBody } from "./skills.ts";
import type { LoadedCommand } from "./ts/load.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** What `/name args` became: the user turn to send, and what sent it. */
export interface Invocation {
  kind: "command" | "skill";
  name: string;
  path: string;
  /** Empty when an extension's command did its work itself: nothing to send. */
  content: (TextContent | ImageContent)[];
  /** The command's `model`: the model for this one prompt. */
  model?: string;
  /** What the user should know (a !`cmd` line that was not run, and why). */
  warnings: string[];
}

export interface ExpandOptions {
  cwd: string;
  /** Where a long !`cmd` output's full log goes. */
  artifactsDir: string;
  /** Removes the secrets in use from that log. */
  redact?: (text: string) => string;
  signal?: AbortSignal;
  /** Names the mode handles itself (the interactive mode's /help, /model): never a command here. */
  reserved?: (name: string) => boolean;
  /** The session an extension's command handler is told about. */
  session?: { id: string; file: string };
  /** !`cmd` lines run confined like the model's commands (core/sandbox). */
  sandbox?: import("../sandbox/policy.ts").SandboxPolicy;
}

/** Seconds a command's !`cmd` line may run. */
export const INLINE_COMMAND_TIMEOUT_S = 30;

/** `/name rest` split; undefined for text that is not a slash command (a path such as /usr/bin is not). */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/([\w.-]+(?::[\w.-]+)*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}

type Invocable = { command: MarkdownCommand } | { code: LoadedCommand } | { provided: ProvidedCommand } | { skill: Skill };

/**
 * The command or skill `/name` invokes: `/skill:x` is always a skill; `/x` a markdown command, an
 * extension's, a provided one (an MCP server's prompt), else a skill of that name.
 */
export function findInvocable(extensions: Extensions, name: string): Invocable | undefined {
  if (name.startsWith("skill:")) {
    const skill = extensions.skills.find((s) => s.name === name.slice("skill:".length));
    return skill ? { skill } : undefined;
  }
  const command = extensions.commands.find((c) => c.name === name);
  if (command) return { command };
  const code = extensions.codeCommands.find((c) => c.name.toLowerCase() === name);
  if (code) return { code };
  const provided = extensions.providedCommands.find((c) => c.name.toLowerCase() === name);
  if (provided) return { provided };
  const skill = extensions.skills.find((s) => s.name === name);
  return skill ? { skill } : undefined;
}

/**
 * Turns `/name args` into the prompt it stands for, or undefined when no command or skill has
 * that name (the text is then sent as it is: it may be a path, or meant for the model).
 */
export async function expandSlashPrompt(text: string, extensions: Extensions, options: ExpandOptions): Promise<Invocation | undefined> {
  const slash = parseSlash(text);
  if (!slash || options.reserved?.(slash.name)) return undefined;
  const found = findInvocable(extensions, slash.name) ?? (await awaitProvided(extensions, slash.name));
  if (!found) return undefined;
  if ("skill" in found) return invokeSkill(found.skill, slash.args, options.cwd, extensions.mayAttach);
  if ("code" in found) return invokeCodeCommand(found.code, slash.args, options);
  if ("provided" in found) {
    const { provided } = found;
    return { kind: "command", name: provided.name, path: provided.path, content: await provided.expand(slash.args, options.signal), warnings: [] };
  }
  return invokeCommand(found.command, slash.args, options, extensions.mayAttach);
}

/**
 * A name in a provider's namespace that it does not know yet (its server is still starting):
 * waited for, then an error saying what it offers when it still does not know it.
 */
async function awaitProvided(extensions: Extensions, name: string): Promise<Invocable | undefined> {
  const provider = extensions.providerOwning(name);
  if (!provider) return undefined;
  await provider.settled();
  const found = findInvocable(extensions, name);
  if (!found) throw new OmpError(provider.unknown(name), { exitCode: EXIT_USAGE });
  return found;
}

/** An extension's command: its handler's text is the prompt; no text means it did the work itself. */
async function invokeCodeCommand(command: LoadedCommand, args: string, options: ExpandOptions): Promise<Invocation> {
  const prompt = await command.handler(args, { cwd: options.cwd, sessionId: options.session?.id ?? "none", sessionFile: options.session?.file ?? "" });
  const text = typeof prompt === "string" ? prompt.trim() : "";
  return { kind: "command", name: command.name, path: command.file, content: text ? [{ type: "text", text: prompt as string }] : [], warnings: [] };
}

function invokeSkill(skill: Skill, args: string, cwd: string, mayAttach: (fullPath: string) => boolean): Invocation {
  const body = readSkillBody(skill);
  const block = `<skill name="${skill.name}" path="${skill.path}">\n${body}\n</skill>\nThe skill's folder is ${skill.dir}; paths in it are relative to that folder.`;
  const [, ...attachments] = args ? expandMentions(args, cwd, mayAttach) : [];
  return {
    kind: "skill",
    name: skill.name,
    path: skill.path,
    content: [{ type: "text", text: args ? `${block}\n\n${args}` : block }, ...attachments],
    warnings: [],
  };
}

/**
 * `$ARGUMENTS` and `$1`…`$9`; the arguments are appended when no placeholder took them. A `$N`
 * beyond the arguments given stays as written, as in Claude Code: it is more often a price
 * (`$5.0M`) than a placeholder, and the arguments must still reach the model.
 */
export function substituteArguments(template: string, args: string): string {
  const positional = splitArgs(args);
  let used = false;
  const text = template
    .replace(/\$ARGUMENTS\b/g, () => {
      used = true;
      return args;
    })
    .replace(/\$([1-9])(?!\d)/g, (written, digit: string) => {
      const value = positional[Number(digit) - 1];
      if (value === undefined) return written;
      used = true;
      return value;
    });
  return !used && args ? `${text.trimEnd()}\n\nARGUMENTS: ${args}` : text;
}

const INLINE_COMMAND = /(^|[^\w`])!`([^`\n]+)`/g;

async function invokeCommand(command: MarkdownCommand, args: string, options: ExpandOptions, mayAttach: (fullPath: string) => boolean): Promise<Invocation> {
  const warnings: string[] = [];
  let text = substituteArguments(readCommandBody(command).trim(), args);
  const where = displayPath(command.path);
  const lines = [...text.matchAll(INLINE_COMMAND)];
  if (lines.length > 0) {
    const outputs: string[] = [];
    for (const match of lines) {
      const line = match[2]!.trim();
      if (!command.source.trusted) {
        noteSkippedForTrust(`!\`cmd\` lines in ${where}`);
        outputs.push(`[!\`${line}\` was not run: the project folder is not trusted]`);
        continue;
      }
      // Read-only commands run without being listed, as in Claude Code (Anthropic's /commit relies on it).
      if (!bashAllowed(command.allowedTools, line, { readOnly: true })) {
        warnings.push(`${where}: !\`${line}\` was not run: the command's allowed-tools do not permit it (add Bash(${line.split(/\s+/).slice(0, 2).join(" ")}:*))`);
        outputs.push(`[!\`${line}\` was not run: allowed-tools does not permit it]`);
        continue;
      }
      outputs.push(await runInline(line, options));
    }
    let index = 0;
    text = text.replace(INLINE_COMMAND, (_, before: string) => `${before}${outputs[index++]}`);
    if (!command.source.trusted) {
      const notice = untrustedNotice(options.cwd);
      if (notice) warnings.push(notice);
    }
  }
  // An untrusted project's command may inline files of its own project, not the user's others.
  const inside = command.source.trusted ? undefined : insideFolder(options.cwd);
  const allow = (full: string) => mayAttach(full) && (!inside || inside(full));
  return {
    kind: "command",
    name: command.name,
    path: command.path,
    content: expandMentions(text, options.cwd, allow),
    ...(command.model ? { model: command.model } : {}),
    warnings,
  };
}

/** Paths that really (symlinks followed) lie inside `folder`. */
function insideFolder(folder: string): (full: string) => boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const top = real(folder);
  return (full) => {
    const path = real(full);
    return path === top || path.startsWith(top + sep);
  };
}

/** Runs a !`cmd` line with the bash tool (its timeout, process-group kill and output cap); its output, failures included. */
async function runInline(line: string, options: ExpandOptions): Promise<string> {
  const { bashTool } = await import("../tools/bash.ts");
  const result = await bashTool.execute(
    { command: line, timeout: INLINE_COMMAND_TIMEOUT_S },
    { cwd: options.cwd, signal: options.signal ?? new AbortController().signal, artifactsDir: options.artifactsDir, ...(options.redact ? { redact: options.redact } : {}), ...(options.sandbox ? { sandbox: options.sandbox } : {}) },
  );
  const output = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  return output === "(no output)" ? "" : output;
}
