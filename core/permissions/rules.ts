import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandHome, homeDir } from "../paths.ts";
import { commandMatches, hasUnseenParts, isReadOnlyCommand, splitChain } from "./bash-rules.ts";
import type { NamedPath } from "../tools/declare.ts";
import { declarationAliased, declarationOf } from "../tools/declarations/index.ts";

/**
 * Claude Code's permission rules (`Bash(npm run test:*)`, `Read(./.env)`, `Edit(/src/**)`,
 * `WebFetch(domain:example.com)`, `mcp__github__create_issue`, `Task(reviewer)`, bare tool
 * names) matched against omp's tool calls. One matcher for settings.json's permissions and a
 * command's allowed-tools.
 */
export type RuleBehavior = "allow" | "deny" | "ask";

export interface PermissionRule {
  behavior: RuleBehavior;
  /** As written, for messages and listings. */
  text: string;
  /** Claude's tool name as written (`Bash`, `Read`, `mcp__server__tool`). */
  tool: string;
  specifier?: string;
  /** The settings file it came from. */
  file: string;
  /** The folder `/path` rules are relative to: the one holding the settings file's `.claude`. */
  base: string;
}

/** `Tool` or `Tool(specifier)`; undefined when it is neither. */
export function parseRule(text: string): { tool: string; specifier?: string } | undefined {
  const match = /^\s*([A-Za-z0-9_.:-]+)\s*(?:\((.*)\))?\s*$/s.exec(text);
  if (!match) return undefined;
  const specifier = match[2]?.trim();
  // `Bash(*)` and `Bash()` are the whole tool.
  return specifier === undefined || specifier === "" || specifier === "*" ? { tool: match[1]! } : { tool: match[1]!, specifier };
}

/** Whether a rule's tool part names this omp tool. */
export function ruleNamesTool(tool: string, ompTool: string): boolean {
  // Claude's names for the tool, from its declaration (Read rules cover every tool that reads files).
  const claude = (declarationOf(ompTool) ?? declarationAliased(ompTool))?.claude;
  if (claude && (claude.names.includes(tool) || claude.rules?.includes(tool))) return true;
  if (tool === ompTool) return true;
  // `mcp__server` and `mcp__server__*`: every tool of that server.
  if (tool.startsWith("mcp__")) {
    const server = tool.replace(/__\*$/, "");
    return server.split("__").length === 2 && ompTool.startsWith(`${server}__`);
  }
  return false;
}

/** The paths a call touches, absolute, with symlinks followed as well (a link must not slip past a deny). */
function callPaths(named: readonly NamedPath[], cwd: string): string[] {
  return named.flatMap(({ path }) => {
    const full = resolve(cwd, expandHome(path ?? "."));
    try {
      const real = realpathSync(full);
      return real === full ? [full] : [full, real];
    } catch {
      return [full];
    }
  });
}

function globRegex(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      // `**/` is any number of folders, `**` at the end anything below.
      if (glob[i + 2] === "/") {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (char === "*") out += "[^/]*";
    else if (char === "?") out += "[^/]";
    else out += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}(?:/.*)?$`, "s");
}

/**
 * A path rule as gitignore-style Claude reads it: `//abs`, `~/home`, `/relative-to-settings`,
 * `./here` or `dir/x` relative to the working folder, and a bare name (`.env`, `*.key`) at any depth.
 */
export function pathMatches(specifier: string, path: string, cwd: string, base: string): boolean {
  let anchored: string;
  if (specifier.startsWith("//")) anchored = specifier.slice(1);
  else if (specifier.startsWith("~/") || specifier === "~") anchored = expandHome(specifier, homeDir());
  else if (specifier.startsWith("/")) anchored = join(base, specifier);
  else if (specifier.startsWith("./") || specifier.replace(/\/+$/, "").includes("/")) anchored = join(resolve(cwd), specifier);
  else {
    // A bare name matches that file or folder wherever it is, and everything inside the folder.
    const name = globRegex(specifier.replace(/\/+$/, ""));
    return path.split("/").some((part) => name.test(part));
  }
  return globRegex(anchored.replace(/\/+$/, "")).test(path);
}

function domainMatches(specifier: string, url: unknown): boolean {
  const domain = /^domain:(.+)$/.exec(specifier)?.[1]?.trim().toLowerCase();
  if (!domain || typeof url !== "string") return false;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === domain || host.endsWith(`.${domain.replace(/^\*\./, "")}`);
  } catch {
    return false;
  }
}

/**
 * Whether `rule` covers this call. Bash deny and ask rules cover a line when any command in it
 * matches; allow rules are judged per line by `bashAllowed` (every command must be allowed).
 */
export function ruleMatches(rule: Pick<PermissionRule, "tool" | "specifier" | "base">, ompTool: string, input: Record<string, unknown>, cwd: string): boolean {
  if (!ruleNamesTool(rule.tool, ompTool)) return false;
  const specifier = rule.specifier;
  if (specifier === undefined) return true;
  const declared = declarationOf(ompTool);
  if (declared?.claude?.specifier) return declared.claude.specifier(specifier, input);
  if (declared?.paths) return callPaths(declared.paths(input), cwd).some((path) => pathMatches(specifier, path, cwd, rule.base));
  if (specifier.startsWith("domain:")) return domainMatches(specifier, input.url);
  return false;
}

/**
 * Whether Bash patterns allow a whole line, as Claude Code decides it: `Bash`/`Bash(*)` allows
 * anything; otherwise every command of the chain must match a pattern (or, with `readOnly`, be
 * one of the read-only commands Claude runs without asking), and no command substitution or
 * redirection may hide another.
 */
export function bashAllowed(rules: readonly string[], line: string, options: { readOnly?: boolean } = {}): boolean {
  const patterns: string[] = [];
  for (const entry of rules) {
    const rule = parseRule(entry);
    if (!rule || rule.tool !== "Bash") continue;
    if (rule.specifier === undefined) return true;
    patterns.push(rule.specifier);
  }
  if ((patterns.length === 0 && !options.readOnly) || hasUnseenParts(line)) return false;
  const parts = splitChain(line);
  return parts.length > 0 && parts.every((part) => patterns.some((pattern) => commandMatches(pattern, part)) || (options.readOnly === true && isReadOnlyCommand(part)));
}
