import { z } from "zod";
import type { ServerScope } from "./config-schema-types.ts";

/**
 * The schema of one MCP server entry, as Claude Code's `.mcp.json` writes it and as users'
 * hand-edited files vary it: unknown keys are kept out of the way rather than rejected (other
 * tools add their own), env values may be numbers or booleans, and `type` may be left out (stdio,
 * or http when there is a `url` and no `command`).
 */

/** Server names as Claude Code allows them; they become part of tool names. */
export const SERVER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const stringish = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const stringMap = z.record(z.string(), stringish);

const common = {
  enabled: z.boolean().optional(),
  /** Milliseconds a tool call may take (progress notifications restart the clock). */
  timeout: z.number().nonnegative().optional(),
  /** Milliseconds the server may take to connect and list its tools. */
  startTimeout: z.number().positive().optional(),
  /** Only these tools of the server (by the server's own names). */
  enabledTools: z.array(z.string()).optional(),
  /** Never these tools of the server. */
  disabledTools: z.array(z.string()).optional(),
};

export const StdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must not be empty"),
  args: z.array(stringish).default([]),
  env: stringMap.default({}),
  cwd: z.string().optional(),
  ...common,
});

export const RemoteServerSchema = z.looseObject({
  type: z.enum(["http", "sse"]),
  url: z.string().min(1, "url must not be empty"),
  headers: stringMap.default({}),
  ...common,
});

/** Spellings other clients write for streamable HTTP. */
const HTTP_ALIASES = new Set(["http", "streamable-http", "streamableHttp", "streamable_http"]);

export const ServerEntrySchema = z.preprocess((raw) => {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const entry = { ...(raw as Record<string, unknown>) };
  if (typeof entry.type === "string" && HTTP_ALIASES.has(entry.type)) entry.type = "http";
  if (entry.type === undefined && typeof entry.url === "string" && entry.command === undefined) entry.type = "http";
  return entry;
}, z.union([StdioServerSchema, RemoteServerSchema]));

export type StdioServerEntry = z.output<typeof StdioServerSchema>;
export type RemoteServerEntry = z.output<typeof RemoteServerSchema>;
export type ServerEntry = z.output<typeof ServerEntrySchema>;

export type { ServerScope } from "./config-schema-types.ts";

/** A server entry with `${VAR}` expanded, ready to connect; `key` identifies the entry as written (the tool-list cache's key). */
/** `fromProject`: the project configured it (its `.mcp.json`, `.omp/mcp.json` or a project plugin), so it runs sandboxed. */
export type ResolvedServer = ServerEntry & { name: string; scope: ServerScope; source: string; key: string; fromProject: boolean };

export function isRemote<T extends ServerEntry>(entry: T): entry is T & RemoteServerEntry {
  return entry.type === "http" || entry.type === "sse";
}
