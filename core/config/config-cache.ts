import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import { VERSION } from "../version.ts";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { type Mapping, isMapping } from "./config-file.ts";

/**
 * Config files as last validated, so that a run whose files have not changed parses no YAML and
 * loads no zod (together over ten milliseconds of start-up). One entry per file: a hash of its
 * exact bytes and the values the slow path (YAML, then the schema) produced from them, under the
kind of file it was read as (a `--config` overlay could name a models.yml). A file is
 * cached only once it validated, so a bad file goes through the slow path, and its error, every
 * time. The whole cache is stamped with omp's version: an upgrade may change the schemas.
 *
 * A cache must never break or slow down a run: any failure to read it is a miss, any failure to
 * write it is ignored.
 */
export const configCachePath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "cache", "config.json");

/**
 * Enough for the global files and those of the projects in use, and their agent files; written
 * in order, the oldest goes first.
 */
const MAX_FILES = 256;

/** Which schema validated a file. */
export type ConfigKind = "settings" | "models" | "keybindings" | "agents" | "claude-settings";

interface Entry {
  hash: string;
  values: Mapping;
}

export class ConfigCache {
  private changed = false;

  private constructor(
    private readonly kind: ConfigKind,
    private readonly path: string,
    private readonly files: Record<string, Entry>,
  ) {}

  /** The cache for files of one kind. */
  static open(kind: ConfigKind, env: NodeJS.ProcessEnv = process.env): ConfigCache {
    const path = configCachePath(env);
    let files: Record<string, Entry> = {};
    try {
      const data: unknown = JSON.parse(readFileSync(path, "utf8"));
      if (isMapping(data) && data.version === VERSION && isMapping(data.files)) files = data.files as Record<string, Entry>;
    } catch {
      // Missing, unreadable or corrupt: start empty.
    }
    return new ConfigCache(kind, path, files);
  }

  /**
   * The values of `file`, whose content is `bytes`: from the cache when these bytes are the ones
   * last validated, else from `validate` (the slow path, which throws on a bad file).
   */
  values(file: string, bytes: Buffer, validate: (text: string) => Mapping): Mapping {
    const key = this.key(file);
    const hash = Bun.hash(bytes).toString(36);
    const entry = this.files[key];
    if (entry && entry.hash === hash && isMapping(entry.values)) return entry.values;
    const values = validate(bytes.toString("utf8"));
    delete this.files[key];
    this.files[key] = { hash, values };
    for (const old of Object.keys(this.files).slice(0, -MAX_FILES)) delete this.files[old];
    this.changed = true;
    return values;
  }

  /** `file` no longer exists. */
  forget(file: string): void {
    const key = this.key(file);
    if (!Object.hasOwn(this.files, key)) return;
    delete this.files[key];
    this.changed = true;
  }

  private key(file: string): string {
    return `${this.kind}:${file}`;
  }

  /**
   * Writes the cache when it changed: a temp file renamed over it, so a reader sees the old cache
   * or the new one. Mode 0600 whatever the files' own modes: models.yml may hold API keys and
   * headers, and the cache must be at least as private as any file it copies. No fsync: a cache
   * torn by a crash is corrupt JSON, which is a miss.
   */
  save(): void {
    if (!this.changed) return;
    this.changed = false;
    try {
      ensurePrivateDir(dirname(this.path));
      writeFileAtomic(this.path, JSON.stringify({ version: VERSION, files: this.files }), { mode: 0o600, forceMode: true, durable: false });
    } catch {
      // A cache that cannot be written is a miss next time; the run itself is unaffected.
    }
  }
}
