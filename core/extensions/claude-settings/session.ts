import type { ExtensionsFactory } from "../agent-extensions.ts";
import { displayPath } from "../../paths.ts";
import { permissionRules } from "./permission-hook.ts";
import { ruleMatches } from "../../permissions/rules.ts";
import { folderTrust, noteSkippedForTrust } from "../../trust/folder-trust.ts";
import { partTrusted } from "../../trust/content-pins.ts";
import type { Catalog } from "../catalog.ts";
import type { HookSource } from "../hooks/lazy.ts";
import { fileSource } from "../session-catalog.ts";
import type { SourceKind } from "../sources.ts";
import { type ClaudeSettings, effectiveEnv, effectiveRules, readClaudeSettings } from "./read.ts";

/** What Claude Code's settings files give a session, ready for the one hooks registry and the tool hook points. */
export interface ClaudeSessionSettings {
  /** The trusted files' `hooks`, as hook sources beside config.yml's and the plugins'. */
  hooks: HookSource[];
  /** An untrusted project's `hooks`: listed as skipped, never run. */
  untrustedHooks: HookSource[];
  additionalDirectories: string[];
  /** The deny rule (as text, with its file) that forbids reading a file, for `@path` mentions. */
  readDenied(fullPath: string): string | undefined;
  /** The permission rules as a tool hook point; undefined when there are none. */
  rules?: ExtensionsFactory;
  /** `user` or `project` for a settings file, for the listing. */
  kindOf(file: string): SourceKind | undefined;
  /** Every rule into the listing, with its file; an untrusted project's allow rules as skipped. */
  record(catalog: Catalog): void;
}

/**
 * Reads `~/.claude/settings.json`, `.claude/settings.json` and `.claude/settings.local.json`,
 * applies their `env` to `env` (a higher file's value wins, and wins over the shell's, as in
 * Claude Code), and hands back hooks, rules and directories. A project's files count only in a
 * trusted folder, except their deny and ask rules, which only ever make a run safer.
 */
export function claudeSessionSettings(cwd: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): ClaudeSessionSettings {
  const settings: ClaudeSettings = readClaudeSettings(cwd, (file) => partTrusted(cwd, file, env), env);
  for (const problem of settings.problems) warn(problem);
  const untrusted = settings.layers.filter((layer) => !layer.trusted);
  // In a trusted folder a file is skipped only for having changed since: changedNotice says so.
  if (!folderTrust(cwd, { env }).trusted && untrusted.some((layer) => layer.hooks || layer.rules.some((rule) => rule.behavior === "allow") || Object.keys(layer.env).length > 0)) {
    noteSkippedForTrust(`hooks, allow rules and env in ${untrusted.map((layer) => displayPath(layer.file)).join(", ")}`);
  }
  Object.assign(env, effectiveEnv(settings));
  const rules = effectiveRules(settings);
  const kinds = new Map(settings.layers.map((layer) => [layer.file, layer.scope === "user" ? ("user" as const) : ("project" as const)]));
  const hookSource = (layer: (typeof settings.layers)[number]): HookSource[] => (layer.hooks ? [{ file: layer.file, block: layer.hooks }] : []);
  return {
    hooks: settings.layers.filter((layer) => layer.trusted).flatMap(hookSource),
    untrustedHooks: untrusted.flatMap(hookSource),
    additionalDirectories: [...new Set(settings.layers.filter((layer) => layer.trusted).flatMap((layer) => layer.additionalDirectories))],
    ...(rules.length > 0 ? { rules: () => ({ toolHooks: [permissionRules(rules, cwd)] }) } : {}),
    kindOf: (file) => kinds.get(file),
    readDenied(fullPath) {
      const rule = rules.find((candidate) => candidate.behavior === "deny" && ruleMatches(candidate, "read", { path: fullPath }, cwd));
      return rule ? `${rule.text} in ${displayPath(rule.file)}` : undefined;
    },
    record(catalog) {
      for (const layer of settings.layers) {
        for (const rule of layer.rules) {
          const skipped = !layer.trusted && rule.behavior === "allow";
          catalog.add(
            {
              kind: "permission",
              name: `${rule.behavior} ${rule.text}`,
              status: skipped ? "skipped" : "loaded",
              path: layer.file,
              source: fileSource(kinds.get(layer.file)!, layer.file, layer.trusted),
              data: { behavior: rule.behavior, rule: rule.text },
              ...(skipped ? { reason: "the folder is not trusted, so its allow rules do not apply (`omp trust` to allow them); its deny and ask rules do" } : {}),
            },
            { reported: true },
          );
        }
      }
    },
  };
}
