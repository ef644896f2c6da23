import type { ToolContext, ToolResult } from "./types.ts";
import type { ReadDetails } from "./read-details.ts";

/** What `read` was asked for, beyond the path. */
export interface ReadRange {
  offset?: number;
  limit?: number;
}

/** Reads `<scheme>://…` paths that are not files: `mcp://<server>/<uri>` an MCP resource, `omp://` omp's docs, `artifact://<id>` a saved output, `rule://<name>` a rule. */
export type UrlReader = (url: string, range: ReadRange, context: ToolContext) => Promise<ToolResult<ReadDetails>>;

/**
 * The readers of this process by scheme, registered by what serves them (the MCP servers, once
 * configured), so `read` needs no knowledge of them and loads nothing of theirs up front.
 */
const readers = new Map<string, UrlReader>();

/** Registers `scheme`'s reader; returns what unregisters it. */
export function registerUrlReader(scheme: string, reader: UrlReader): () => void {
  readers.set(scheme, reader);
  return () => {
    if (readers.get(scheme) === reader) readers.delete(scheme);
  };
}

/** omp's own schemes, served by modules loaded on their first read. */
const BUILTIN: Record<string, UrlReader> = {
  omp: async (url, range, context) => (await import("./omp-docs.ts")).readOmpDocs(url, range, context),
  artifact: async (url, range, context) => (await import("./artifacts.ts")).readArtifact(url, range, context),
  memory: async (url, range, context) => (await import("../memory/read-url.ts")).readMemoryUrl(url, range, context),
  rule: async (url, range, context) => (await import("../rules/rule-url.ts")).readRule(url, range, context),
  issue: async (url, range, context) => (await import("./github-urls.ts")).readGithubUrl(url, range, context),
  pr: async (url, range, context) => (await import("./github-urls.ts")).readGithubUrl(url, range, context),
  conflict: async (url, range, context) => (await import("./conflicts.ts")).readConflictUrl(url, range, context),
  agent: async (url, range, context) => (await import("./agent-urls.ts")).readAgentUrl(url, range, context),
  history: async (url, range, context) => (await import("./agent-urls.ts")).readAgentUrl(url, range, context),
  local: async (url, range, context) => (await import("./local-urls.ts")).readLocalUrl(url, range, context),
};

/** Schemes `read` knows even when nothing serves them now, with what to tell the model then. */
const UNSERVED: Record<string, string> = {
  mcp: "mcp:// paths read resources of MCP servers, and no MCP server is configured in this session (omp mcp add configures one).",
  skill: "skill:// paths read skills, and no skill is loaded in this session (skills live in .omp/skills/<name>/SKILL.md or ~/.omp/agent/skills/).",
};

/** The reader for `path` when it is such a URL; an error message when its scheme is known but unserved. */
export function urlReaderFor(path: string): UrlReader | string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(path)?.[1]?.toLowerCase();
  if (scheme === undefined) return undefined;
  return readers.get(scheme) ?? BUILTIN[scheme] ?? UNSERVED[scheme];
}
