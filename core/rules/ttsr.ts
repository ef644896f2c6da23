import { basename } from "node:path";
import type { InterruptMode } from "./interrupt-mode.ts";
import type { Rule } from "./rule.ts";
import { findMatches, languageOf } from "../ast-grep/engine.ts";

/** The `ttsr.*` settings (the original omp's names and defaults). */
export interface TtsrSettings {
  enabled: boolean;
  contextMode: "discard" | "keep";
  interruptMode: InterruptMode;
  repeatMode: "once" | "after-gap";
  repeatGap: number;
  disabledRules: string[];
}

export const DEFAULT_TTSR_SETTINGS: TtsrSettings = { enabled: true, contextMode: "discard", interruptMode: "always", repeatMode: "once", repeatGap: 10, disabledRules: [] };

/** Which part of the model's output a piece of stream is: its text, its thinking, or a tool call's arguments. */
export type StreamSource = "text" | "thinking" | "tool";

export interface MatchContext {
  source: StreamSource;
  toolName?: string;
  /** The file the tool call is about, when it names one. */
  path?: string;
  /** Evaluate the rules' AST conditions too (they parse the code: not at every delta). */
  ast?: boolean;
}

interface ToolScope {
  name: string;
  glob?: Bun.Glob;
}

interface Scope {
  text: boolean;
  thinking: boolean;
  allTools: boolean;
  tools: ToolScope[];
}

/** A rule ready to watch a stream. */
export interface TtsrRule {
  rule: Rule;
  conditions: RegExp[];
  astConditions: string[];
  scope: Scope;
  globs: Bun.Glob[];
}

/** `(?i)`, `(?m)`, `(?s)` at the start (other engines' inline flags) become JavaScript flags. */
export function compileCondition(source: string): RegExp {
  let flags = "";
  let pattern = source;
  for (let inline = /^\(\?([ims]+)\)/.exec(pattern); inline; inline = /^\(\?([ims]+)\)/.exec(pattern)) {
    for (const flag of inline[1]!) if (!flags.includes(flag)) flags += flag;
    pattern = pattern.slice(inline[0].length);
  }
  return new RegExp(pattern, flags);
}

/** A condition written as a file glob (`*.rs`): shorthand for watching edit and write on such files. */
function globShorthand(condition: string): string | undefined {
  return /^[\w*?./{},-]+$/.test(condition) && condition.includes("*.") && (condition.startsWith("*") || condition.includes("/")) ? condition : undefined;
}

function parseScope(tokens: readonly string[] | undefined): Scope {
  if (!tokens) return { text: true, thinking: false, allTools: true, tools: [] };
  const scope: Scope = { text: false, thinking: false, allTools: false, tools: [] };
  for (const token of tokens) {
    const value = token.trim();
    if (value === "text") scope.text = true;
    else if (value === "thinking") scope.thinking = true;
    else if (value === "tool" || value === "toolcall") scope.allTools = true;
    else {
      const tool = /^(?:tool:)?([\w.-]+)(?:\((.+)\))?$/.exec(value);
      if (tool) scope.tools.push({ name: tool[1]!, ...(tool[2] ? { glob: new Bun.Glob(tool[2].trim()) } : {}) });
    }
  }
  return scope;
}

function globMatches(glob: Bun.Glob, path: string): boolean {
  const normal = path.replaceAll("\\", "/").replace(/^\.\//, "");
  return glob.match(normal) || glob.match(basename(normal));
}

/** A rule compiled for watching, or why it cannot watch anything (with warnings about what was dropped). */
export function compileRule(rule: Rule): { compiled?: TtsrRule; skipped?: string; warnings: string[] } {
  const warnings: string[] = [];
  const conditions: RegExp[] = [];
  let scopeTokens = rule.scope;
  for (const condition of rule.condition ?? []) {
    const glob = globShorthand(condition);
    if (glob) {
      conditions.push(/[\s\S]/);
      scopeTokens ??= [`tool:edit(${glob})`, `tool:write(${glob})`];
      continue;
    }
    try {
      conditions.push(compileCondition(condition));
    } catch (error) {
      warnings.push(`condition ${JSON.stringify(condition)} is not a valid regular expression (${(error as Error).message})`);
    }
  }
  const astConditions = rule.astCondition ?? [];
  if (!rule.condition?.length && astConditions.length === 0) return { skipped: "no condition (not a stream rule)", warnings };
  if (conditions.length === 0 && astConditions.length === 0) return { skipped: "no condition compiles", warnings };
  const scope = parseScope(scopeTokens);
  if (!scope.text && !scope.thinking && !scope.allTools && scope.tools.length === 0) return { skipped: `its scope (${(rule.scope ?? []).join(", ")}) names no stream`, warnings };
  return { compiled: { rule, conditions, astConditions, scope, globs: (rule.globs ?? []).map((glob) => new Bun.Glob(glob)) }, warnings };
}

/** Whether a match of `rule` on `source` stops the stream at once, or is told after it. */
export function interrupts(rule: Rule, source: StreamSource, settings: TtsrSettings): boolean {
  const mode = rule.interruptMode ?? settings.interruptMode;
  if (mode === "always") return true;
  if (mode === "prose-only") return source !== "tool";
  if (mode === "tool-only") return source === "tool";
  return false;
}

/** Why `rule` does not look at this stream, or undefined when it does. */
function outOfScope(rule: TtsrRule, context: MatchContext): string | undefined {
  const { scope } = rule;
  if (context.source === "text" && !scope.text) return "its scope leaves out text";
  if (context.source === "thinking" && !scope.thinking) return "its scope leaves out thinking";
  if (context.source === "tool") {
    const tool = context.toolName ?? "";
    const named = scope.tools.some((entry) => entry.name === tool && (!entry.glob || (context.path !== undefined && globMatches(entry.glob, context.path))));
    if (!scope.allTools && !named) return `its scope does not cover ${tool ? `tool ${tool}` : "tool calls"}${context.path ? ` on ${context.path}` : ""}`;
  }
  if (rule.globs.length > 0 && (context.path === undefined || !rule.globs.some((glob) => globMatches(glob, context.path!)))) {
    return context.path === undefined ? "its globs need a file path" : `${context.path} matches none of its globs`;
  }
  return undefined;
}

/** Whether one of the rule's ast-grep patterns matches `text` as the code of `path`'s language. */
function astMatches(rule: TtsrRule, text: string, context: MatchContext): boolean {
  if (!context.ast || rule.astConditions.length === 0 || context.source !== "tool" || !context.path) return false;
  const lang = languageOf(context.path);
  if (!lang) return false;
  return rule.astConditions.some((pattern) => {
    try {
      return findMatches(lang, text, pattern).matches.length > 0;
    } catch {
      // A pattern that is not code of this language matches nothing here.
      return false;
    }
  });
}

/** Why `rule` does not fire on `text`, or undefined when it does (repeat policy aside). */
export function explainMatch(rule: TtsrRule, text: string, context: MatchContext): string | undefined {
  return outOfScope(rule, context) ?? (rule.conditions.some((condition) => condition.test(text)) || astMatches(rule, text, context) ? undefined : "no condition matches");
}

/**
 * The session's stream rules (TTSR) and what they already did: a rule fires within its repeat
 * policy (once per session, or again after `repeatGap` turns). Each request's streams are
 * buffered by its own StreamWatch, so a subagent's requests running beside it do not mix in.
 */
export class TtsrManager {
  private readonly rules: TtsrRule[] = [];
  /** Turn count at each rule's last injection. */
  private readonly injectedAt = new Map<string, number>();
  private turns = 0;

  constructor(readonly settings: TtsrSettings) {}

  /** Registers a rule; why it was not, otherwise (warnings: conditions that were dropped). */
  addRule(rule: Rule): { added: boolean; reason?: string; warnings: string[] } {
    if (!this.settings.enabled) return { added: false, reason: "ttsr.enabled is false", warnings: [] };
    if (this.settings.disabledRules.includes(rule.name)) return { added: false, reason: "listed in ttsr.disabledRules", warnings: [] };
    if (this.rules.some((known) => known.rule.name === rule.name)) return { added: false, reason: "a rule of the same name is registered", warnings: [] };
    const { compiled, skipped, warnings } = compileRule(rule);
    if (!compiled) return { added: false, reason: skipped, warnings };
    this.rules.push(compiled);
    return { added: true, warnings };
  }

  hasRules(): boolean {
    return this.rules.length > 0;
  }

  hasAstRules(): boolean {
    return this.rules.some((rule) => rule.astConditions.length > 0);
  }

  get registered(): readonly TtsrRule[] {
    return this.rules;
  }

  /** A turn ended: the gap of `after-gap` is counted in turns. */
  turnEnded(): void {
    this.turns++;
  }

  /** The rules that fire on a stream's text so far (scope, globs, conditions and repeat policy). */
  check(text: string, context: MatchContext): Rule[] {
    return this.rules.filter((rule) => this.eligible(rule.rule.name) && explainMatch(rule, text, context) === undefined).map((rule) => rule.rule);
  }

  private eligible(name: string): boolean {
    const last = this.injectedAt.get(name);
    if (last === undefined) return true;
    return this.settings.repeatMode === "after-gap" && this.turns - last >= this.settings.repeatGap;
  }

  markInjected(names: readonly string[]): void {
    for (const name of names) this.injectedAt.set(name, this.turns);
  }

  /** Matches that were never told (their reply failed): the rules may fire again. */
  forget(names: readonly string[]): void {
    for (const name of names) this.injectedAt.delete(name);
  }

  /** Rules a resumed session already injected: they do not fire again under `once`. */
  restoreInjected(names: readonly string[]): void {
    this.markInjected(names);
  }

  interrupts(rule: Rule, source: StreamSource): boolean {
    return interrupts(rule, source, this.settings);
  }
}

const INTERRUPT_OPEN = '<system-interrupt reason="rule_violation"';

/** The rule names of an injection message's text, or undefined when the text is not one. */
export function injectedRuleNames(text: string): string[] | undefined {
  if (!text.startsWith(INTERRUPT_OPEN)) return undefined;
  return [...text.matchAll(/<system-interrupt reason="rule_violation" rule="([^"]*)"/g)].map((match) => match[1]!);
}

/** What the model is given when rules stopped its output (the original's ttsr-interrupt template). */
export function interruptText(rules: readonly Rule[]): string {
  return rules
    .map((rule) => `${INTERRUPT_OPEN} rule="${rule.name}" path="${rule.path}">\nYour output was interrupted because it violated this rule. Follow it, and continue the task from where you were without repeating the violating output:\n\n${rule.content}\n</system-interrupt>`)
    .join("\n\n");
}

/** What a tool's result carries when a rule matched its call without interrupting it (ttsr-tool-reminder). */
export function reminderText(rules: readonly Rule[]): string {
  return rules
    .map((rule) => `<system-reminder reason="rule_violation" rule="${rule.name}" path="${rule.path}">\nThis call matched a rule; follow it from now on:\n\n${rule.content}\n</system-reminder>`)
    .join("\n\n");
}
