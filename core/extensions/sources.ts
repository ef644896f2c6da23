import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { projectRoot } from "../fs/project-root.ts";
import { agentDir, displayPath, homeDir } from "../paths.ts";
import { folderTrust, readTrustStore } from "../trust/folder-trust.ts";
import type { EnabledPlugin } from "../plugins/enabled.ts";

/**
 * Where extensions come from. A source is a folder laid out like Claude Code's and omp's config
 * dirs and plugins: `skills/<name>/SKILL.md`, `commands/**.md`, `agents/*.md`, ... Every loader
 * (skills and commands here; agents, hooks and extensions elsewhere) takes the same list, so a
 * plugin adds itself once, as a source, and all of its kinds load.
 */
export type SourceKind = "user" | "project" | "plugin" | "cli" | "builtin";

export interface Source {
  kind: SourceKind;
  /** The folder holding `skills/`, `commands/`, `agents/`. */
  root: string;
  /**
   * May files from here run code (a command's !`cmd` lines, hooks)? User-level folders, plugins the
   * user installed and paths given on the command line always; a project folder only once the
   * user trusted it (core/trust/folder-trust.ts). Text (skills, command bodies) needs no trust.
   */
  trusted: boolean;
  /** Prefix of the names it gives: a plugin's name, for `<plugin>:<cmd>`. */
  namespace?: string;
  /**
   * Where its skills and commands are when not `<root>/skills` and `<root>/commands`: a plugin's
   * plugin.json may name other folders (core/plugins/components.ts).
   */
  skillDirs?: string[];
  commandDirs?: string[];
  /** How listings name it: `~/.claude`, `.omp`, `plugin review-tools`. */
  label: string;
}

export interface SourceOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Sources found elsewhere (installed plugins, `--plugin-dir`), after the built-in ones. */
  extra?: Source[];
}

/** Project config dirs looked for in each folder from cwd up to the repository root. */
const PROJECT_DIRS = [".omp", ".claude", ".agents"];

/**
 * The sources for a session in `cwd`, highest precedence first: the user's own folders
 * (`~/.omp/agent`, `~/.claude`), then the project's (`.omp`, `.claude`, `.agents` in cwd and each
 * parent up to the repository root, nearest first), then `extra`. The user's come first so a
 * cloned repository cannot shadow the user's own commands with its own text. Only folders that
 * exist are returned: a session with none of them pays a few stats.
 */
export function discoverSources(options: SourceOptions): Source[] {
  const env = options.env ?? process.env;
  const home = homeDir();
  const sources: Source[] = [];
  const seen = new Set<string>();
  const add = (source: Source) => {
    if (seen.has(source.root) || !existsSync(source.root)) return;
    seen.add(source.root);
    sources.push(source);
  };
  add({ kind: "user", root: agentDir(env), trusted: true, label: displayPath(agentDir(env)) });
  add({ kind: "user", root: join(home, ".claude"), trusted: true, label: "~/.claude" });
  const cwd = resolve(options.cwd);
  const top = projectRoot(cwd);
  const project: Source[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    // The home folder's config dirs are the user's, listed above.
    if (dir !== home) {
      for (const name of PROJECT_DIRS) {
        const root = join(dir, name);
        if (!seen.has(root) && existsSync(root)) project.push({ kind: "project", root, trusted: false, label: relative(cwd, root) });
      }
    }
    if (dir === top || dirname(dir) === dir) break;
  }
  if (project.length > 0) {
    const store = readTrustStore(env);
    for (const source of project) add({ ...source, trusted: folderTrust(dirname(source.root), { env, store }).trusted });
  }
  for (const source of options.extra ?? []) add(source);
  return sources;
}

/**
 * Each plugin as a source of skills and commands (a Source above). Text needs no trust;
 * `trusted` decides whether its commands' !`cmd` lines may run.
 */
export function pluginSources(plugins: readonly EnabledPlugin[]): Source[] {
  return plugins
    .filter((plugin) => plugin.components.skills.length + plugin.components.commands.length > 0)
    .map((plugin) => ({
      kind: "plugin",
      root: plugin.root,
      trusted: plugin.trusted,
      namespace: plugin.name,
      label: `plugin ${plugin.id}`,
      skillDirs: plugin.components.skills,
      commandDirs: plugin.components.commands,
    }));
}
