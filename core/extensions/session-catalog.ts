import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { SettingsLayer } from "../config/settings.ts";
import { parseYamlValue } from "../config/yaml-file.ts";
import { displayPath } from "../paths.ts";
import type { Catalog } from "./catalog.ts";
import { FIRED_EVENTS } from "./hooks/events.ts";
import type { HookSource } from "./hooks/lazy.ts";
import type { Source, SourceKind } from "./sources.ts";
import type { ExtensionReport } from "./ts/load.ts";

/**
 * How hooks and TypeScript extensions are recorded in the same catalog as skills and
 * commands, so `omp extensions` and `/extensions` list every kind from one registry. Their loaders
 * warn as they go, so entries are recorded as already reported.
 */

export const UNTRUSTED_REASON = "the folder is not trusted, so its code does not run (`omp trust` to allow it)";

/** The source of one file, for the listing's source column. */
export function fileSource(kind: SourceKind, file: string, trusted = true): Source {
  return { kind, root: dirname(file), trusted, label: displayPath(dirname(file)) };
}

const LAYER_SOURCE: Record<SettingsLayer["kind"], SourceKind> = { global: "user", profile: "user", project: "project", overlay: "cli", runtime: "cli" };

export function hookSourceKind(source: HookSource, layers: readonly SettingsLayer[]): SourceKind {
  if (source.pluginRoot) return "plugin";
  return LAYER_SOURCE[layers.find((layer) => layer.path === source.file)?.kind ?? "global"];
}

/**
 * Each hook of the sources as an entry (event and matcher as its name, the command as its
 * detail), and each bad block as a skipped one. `skipReason` lists them all as skipped: an
 * untrusted folder's hooks. Parses with the hooks' own loader, so the listing and a run agree.
 */
export function recordHooks(catalog: Catalog, sources: readonly HookSource[], kindOf: (source: HookSource) => SourceKind, skipReason?: string): void {
  if (sources.length === 0) return;
  const { loadHooks } = require("./hooks/load.ts") as typeof import("./hooks/load.ts");
  for (const source of sources) {
    const origin = fileSource(kindOf(source), source.file, skipReason === undefined);
    const { hooks, problems } = loadHooks([source]);
    for (const hook of hooks) {
      const matcher = hook.matcher === "" ? "*" : hook.matcher;
      catalog.add(
        {
          kind: "hook",
          name: `${hook.event} ${matcher}`,
          status: skipReason ? "skipped" : "loaded",
          path: source.file,
          source: origin,
          detail: hook.command,
          data: { event: hook.event, matcher: hook.matcher, command: hook.command, timeoutSeconds: hook.timeoutMs / 1000, ...(hook.background ? { background: hook.background } : {}), ...(hook.condition ? { if: hook.condition.text } : {}) },
          ...(FIRED_EVENTS.has(hook.event) ? {} : { note: `omp has no ${hook.event} moment yet: loaded, never run` }),
          ...(skipReason ? { reason: skipReason } : {}),
        },
        { reported: true },
      );
    }
    for (const problem of problems) {
      catalog.add({ kind: "hook", name: "(hooks block)", status: "skipped", path: source.file, source: origin, reason: withoutFile(problem, source.file) }, { reported: true });
    }
  }
}

/** An untrusted project's `.omp/config.yml` hooks, which the settings loader left out: listed as skipped. */
export function untrustedProjectHooks(layers: readonly SettingsLayer[]): HookSource[] {
  const project = layers.find((layer) => layer.kind === "project" && layer.path !== undefined);
  if (!project?.path) return [];
  try {
    const hooks = (parseYamlValue(readFileSync(project.path, "utf8")) as { hooks?: unknown } | null)?.hooks;
    return hooks === undefined ? [] : [{ file: project.path, block: hooks }];
  } catch {
    return [];
  }
}

/** What each extension file registered, or why it failed to load. */
export function recordExtensionReports(catalog: Catalog, reports: readonly ExtensionReport[], kindOf: (file: string) => SourceKind): void {
  for (const report of reports) {
    const registered = [...report.tools.map((tool) => `tool ${tool}`), ...report.commands.map((command) => `/${command}`)];
    catalog.add(
      {
        kind: "extension",
        name: displayPath(report.file).split("/").slice(-2).join("/"),
        status: report.error ? "skipped" : "loaded",
        path: report.file,
        source: fileSource(kindOf(report.file), report.file),
        ...(registered.length > 0 ? { detail: registered.join(", ") } : {}),
        data: { tools: report.tools, commands: report.commands, ...(report.problems.length > 0 ? { problems: report.problems } : {}) },
        ...(report.error ? { reason: `failed to load: ${report.error}` } : report.problems.length > 0 ? { warning: report.problems.join("; ") } : {}),
      },
      { reported: true },
    );
  }
}

/** Extension files that were not loaded (an untrusted folder's, a path that is not a module), with why. */
export function recordSkippedExtension(catalog: Catalog, file: string, kind: SourceKind, reason: string): void {
  catalog.add({ kind: "extension", name: displayPath(file).split("/").slice(-2).join("/"), status: "skipped", path: file, source: fileSource(kind, file, false), reason }, { reported: true });
}

/** A loader's message without the file name it starts with, which the listing shows beside it. */
function withoutFile(problem: string, file: string): string {
  const where = `${displayPath(file)}: `;
  return (problem.startsWith(where) ? problem.slice(where.length) : problem).replace(/; (?:ignored|skipped)$/, "");
}
