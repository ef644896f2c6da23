import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { agentDir } from "../paths.ts";
import type { ResolvedServer } from "./config-schema.ts";

/**
 * The last tool and prompt lists each server gave, so the first request of a run can carry a
 * server's tools before it has connected (a call then waits for the connection). Keyed by the
 * server's name and a hash of its entry: a changed entry starts without a cached list.
 */

export interface McpToolInfo {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string; [key: string]: unknown };
}

export interface McpPromptInfo {
  name: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
}

export interface CachedServer {
  tools: McpToolInfo[];
  prompts: McpPromptInfo[];
  resources: boolean;
}

interface CacheFile {
  version: 1;
  servers: Record<string, CachedServer & { key: string }>;
  /** Servers whose last start failed, and why: a run neither waits for them nor says it again. */
  failed?: Record<string, { key: string; error: string }>;
}

export const toolCachePath = (env: NodeJS.ProcessEnv = process.env) => join(agentDir(env), "cache", "mcp-tools.json");

/** The entry as written: a changed entry starts without a cached list. */
export function entryKey(raw: unknown): string {
  return Bun.hash.wyhash(JSON.stringify(raw) ?? "").toString(36);
}

export class ToolCache {
  private constructor(
    private readonly path: string,
    private readonly data: CacheFile,
  ) {}

  static open(env: NodeJS.ProcessEnv = process.env): ToolCache {
    const path = toolCachePath(env);
    let data: CacheFile = { version: 1, servers: {} };
    try {
      const parsed = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
      if (parsed?.version === 1 && parsed.servers && typeof parsed.servers === "object") data = parsed;
    } catch {
      // No cache yet, or a damaged one: every server starts without a list.
    }
    return new ToolCache(path, data);
  }

  get(server: Pick<ResolvedServer, "name" | "key">): CachedServer | undefined {
    const entry = this.data.servers[server.name];
    return entry && entry.key === server.key && Array.isArray(entry.tools) ? entry : undefined;
  }

  /** Why the server's last start failed, when it did (and its entry is unchanged since). */
  lastFailure(server: Pick<ResolvedServer, "name" | "key">): string | undefined {
    const entry = this.data.failed?.[server.name];
    return entry && entry.key === server.key ? entry.error : undefined;
  }

  /** Records a server's lists (its start succeeded); the file is rewritten only when something changed. */
  set(server: ResolvedServer, lists: CachedServer): void {
    const entry = { key: server.key, ...lists };
    const failed = this.data.failed?.[server.name] !== undefined;
    if (!failed && JSON.stringify(this.data.servers[server.name]) === JSON.stringify(entry)) return;
    if (failed) delete this.data.failed![server.name];
    this.data.servers[server.name] = entry;
    this.write();
  }

  /** Records that the server's start failed with `error`. */
  setFailed(server: ResolvedServer, error: string): void {
    if (this.lastFailure(server) === error) return;
    this.data.failed = { ...this.data.failed, [server.name]: { key: server.key, error } };
    this.write();
  }

  private write(): void {
    try {
      writeFileAtomic(this.path, JSON.stringify(this.data), { mode: 0o600 });
    } catch {
      // A cache that cannot be written only costs the next start its head start.
    }
  }
}
