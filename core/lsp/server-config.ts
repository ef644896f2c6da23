import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describeZodError } from "../errors/zod-issues.ts";

/**
 * One language server, in the original omp's `.lsp.json` shape (omp-docs/lsp-config.md), also
 * taking Claude Code plugins' `lspServers` shape (`extensionToLanguage` instead of `fileTypes`).
 * Every field is optional here: a partial entry overrides a built-in one field by field, and a new
 * server must end up with `command` and `fileTypes` (checked by {@link completeServer}).
 */
export const ServerEntry = z.looseObject({
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  fileTypes: z.array(z.string().min(1)).optional(),
  /** Claude plugins: `{ ".go": "go" }`, extension to languageId. */
  extensionToLanguage: z.record(z.string(), z.string()).optional(),
  rootMarkers: z.array(z.string().min(1)).optional(),
  initOptions: z.record(z.string(), z.unknown()).optional(),
  /** Claude plugins' name for initOptions. */
  initializationOptions: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  disabled: z.boolean().optional(),
  warmupTimeoutMs: z.number().int().positive().optional(),
  isLinter: z.boolean().optional(),
});
export type ServerEntry = z.infer<typeof ServerEntry>;

/** A server ready to run: where it comes from is kept for `omp doctor` and `/lsp`. */
export interface ServerConfig {
  name: string;
  command: string;
  args: string[];
  /** Lower-case extensions with the dot: `.ts`. */
  fileTypes: string[];
  /** Extension to LSP languageId, where the config says (Claude plugins); else guessed. */
  languages: Record<string, string>;
  rootMarkers: string[];
  initOptions?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  warmupTimeoutMs?: number;
  isLinter: boolean;
  /** "built-in", a file path, "settings", or "plugin <id>". */
  source: string;
  /** Some of it came from the project (its files, its plugins, its config.yml): it runs sandboxed. */
  fromProject: boolean;
  /** How to get the server when it is missing. */
  install?: string;
}

const JS = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];
const PY_ROOTS = ["pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"];

/** The servers omp knows without configuration, in order of preference per language. */
export const BUILTIN_SERVERS: Record<string, ServerEntry & { install: string }> = {
  "typescript-language-server": { command: "typescript-language-server", args: ["--stdio"], fileTypes: JS, rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"], install: "npm install -D typescript-language-server typescript" },
  pyright: { command: "pyright-langserver", args: ["--stdio"], fileTypes: [".py", ".pyi"], rootMarkers: PY_ROOTS, install: "npm install -g pyright" },
  basedpyright: { command: "basedpyright-langserver", args: ["--stdio"], fileTypes: [".py", ".pyi"], rootMarkers: PY_ROOTS, install: "pip install basedpyright" },
  gopls: { command: "gopls", args: [], fileTypes: [".go"], rootMarkers: ["go.work", "go.mod"], install: "go install golang.org/x/tools/gopls@latest" },
  "rust-analyzer": { command: "rust-analyzer", args: [], fileTypes: [".rs"], rootMarkers: ["Cargo.toml"], install: "rustup component add rust-analyzer" },
  clangd: { command: "clangd", args: [], fileTypes: [".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".mm"], rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile", ".git"], install: "apt-get install clangd" },
  "ruby-lsp": { command: "ruby-lsp", args: [], fileTypes: [".rb", ".rake"], rootMarkers: ["Gemfile"], install: "gem install ruby-lsp" },
  jdtls: { command: "jdtls", args: [], fileTypes: [".java"], rootMarkers: ["pom.xml", "build.gradle", "build.gradle.kts"], install: "install Eclipse JDT LS (jdtls) and put it on PATH" },
};

const LANGUAGE_IDS: Record<string, string> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
  ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c",
  ".m": "objective-c", ".mm": "objective-cpp", ".rb": "ruby", ".rake": "ruby", ".java": "java",
};

/** The LSP languageId of a file with extension `ext` for `server`. */
export function languageId(server: ServerConfig, ext: string): string {
  return server.languages[ext] ?? LANGUAGE_IDS[ext] ?? (/^\.(cc|cpp|cxx|hh|hpp|hxx)$/.test(ext) ? "cpp" : ext.slice(1));
}

const dotted = (ext: string) => (ext.startsWith(".") ? ext : `.${ext}`).toLowerCase();

/** Merges `over` onto `base` field by field (settings objects replace, as in the original omp). */
export function mergeEntry(base: ServerEntry | undefined, over: ServerEntry): ServerEntry {
  return { ...base, ...Object.fromEntries(Object.entries(over).filter(([, value]) => value !== undefined)) };
}

/** A merged entry as a runnable server, or why it is not one. */
export function completeServer(name: string, entry: ServerEntry, source: string, fromProject = false): ServerConfig | string {
  const languages = Object.fromEntries(Object.entries(entry.extensionToLanguage ?? {}).map(([ext, id]) => [dotted(ext), id]));
  const fileTypes = [...new Set([...(entry.fileTypes ?? []).map(dotted), ...Object.keys(languages)])];
  if (!entry.command) return `server ${name} (${source}) has no command`;
  if (fileTypes.length === 0) return `server ${name} (${source}) has no fileTypes`;
  const builtin = BUILTIN_SERVERS[name];
  return {
    name,
    command: entry.command,
    args: entry.args ?? [],
    fileTypes,
    languages,
    rootMarkers: entry.rootMarkers ?? [],
    initOptions: entry.initOptions ?? entry.initializationOptions,
    settings: entry.settings,
    env: entry.env,
    warmupTimeoutMs: entry.warmupTimeoutMs,
    isLinter: entry.isLinter ?? false,
    source,
    fromProject,
    ...(builtin ? { install: builtin.install } : {}),
  };
}

/**
 * The servers of one file: `{servers: {...}}` or the flat map (omp), or Claude's `.lsp.json`
 * (a flat map too). Bad entries are reported, not fatal: one typo must not stop every server.
 */
export function parseServerFile(document: unknown, warn: (line: string) => void, where: string): Record<string, ServerEntry> {
  if (!document || typeof document !== "object" || Array.isArray(document)) {
    warn(`${where}: not an object of language servers; ignored`);
    return {};
  }
  const record = document as Record<string, unknown>;
  const servers = (record.servers && typeof record.servers === "object" ? record.servers : record) as Record<string, unknown>;
  const found: Record<string, ServerEntry> = {};
  for (const [name, raw] of Object.entries(servers)) {
    if (name === "$schema" || name === "idleTimeoutMs" || name === "servers") continue;
    const parsed = ServerEntry.safeParse(raw);
    if (parsed.success) found[name] = parsed.data;
    else warn(`${where}: server ${name}: ${describeZodError(parsed.error, "entry", { all: true })}; ignored`);
  }
  return found;
}

/** Where clangd finds how a project's files are compiled; without one it guesses from its fallback flags. */
const COMPILATION_DATABASES = ["compile_commands.json", "compile_flags.txt", ".clangd", join("build", "compile_commands.json")];

/**
 * What `initialize` gets as initializationOptions: the configured ones; for clangd in a project
 * with no compilation database (a plain git checkout), fallback flags that put the project and its
 * include/ on the include path, passed to clangd rather than written into the user's project.
 */
export function initOptionsFor(server: ServerConfig, root: string): Record<string, unknown> {
  const own = server.initOptions ?? {};
  if (server.command !== "clangd" || "fallbackFlags" in own || COMPILATION_DATABASES.some((file) => existsSync(join(root, file)))) return own;
  return { ...own, fallbackFlags: [`-I${root}`, `-I${join(root, "include")}`, "-Wall"] };
}
