import { z } from "zod";
import { INTERRUPT_MODES } from "../rules/interrupt-mode.ts";
import { ThinkingLevel } from "../ai/model-schema.ts";

/**
 * Every setting omp reads from config.yml, with its default. The one source of truth: files are
 * validated against it, `omp config` lists, parses and checks keys with it, the `/settings` screen
 * shows each key's `.describe()` text and allowed values from it (settings-catalog.ts), and the
 * types below come from it. Objects are strict so that a misspelt key is an error instead of a
 * silent no-op. Give a new setting a `.describe()`: it is what users read about it.
 */

export const ApprovalMode = z.enum(["always-ask", "write", "yolo"]);
export type ApprovalMode = z.infer<typeof ApprovalMode>;

export const UpdateChannel = z.enum(["stable", "canary"]);
export type UpdateChannel = z.infer<typeof UpdateChannel>;

const count = () => z.number().int().min(0);

/** The edit tool's format (see core/tools/edit/): old→new text, a diff, line numbers, or the Codex patch envelope. */
export const EditMode = z.enum(["replace", "patch", "hashline", "apply_patch"]);
export type EditMode = z.infer<typeof EditMode>;

/** `tools.approval.<tool>`; `prompt` is the original omp's word for `ask`, accepted so its config files work. */
export const ToolPolicy = z.enum(["allow", "ask", "deny", "prompt"]);
export type ToolPolicy = z.infer<typeof ToolPolicy>;

/** `tools.discoveryMode`: which discoverable tools a session defers (core/tools/discovery/policy.ts). */
export const DiscoveryMode = z.enum(["auto", "all", "mcp-only", "off"]);
export type DiscoveryMode = z.infer<typeof DiscoveryMode>;

export const Settings = z.strictObject({
  model: z.string().min(1).optional().describe("The model when --model is not given: provider/id, a bare id or a fuzzy name, with an optional :thinking suffix."),
  // `medium` rather than `off`: coding tasks gain much from some reasoning, and the highest levels cost more than a default should.
  thinking: ThinkingLevel.default("medium").describe("Reasoning effort for models that support it."),
  approvalMode: ApprovalMode.default("yolo").describe("always-ask: every tool call waits for approval; write: only calls that change files or run commands; yolo: none."),
  tools: z
    .strictObject({
      disabled: z.array(z.string().min(1)).default([]).describe("Tool names the model never sees."),
      // --- deferred tools (issue 42): the original omp's names ---
      discoveryMode: DiscoveryMode.default("auto").describe(
        "Tools kept out of the first request and found with search_tool_bm25: auto: rarely needed built-ins, and MCP tools when there are more than 3; all: every discoverable tool; mcp-only: MCP tools only; off: none.",
      ),
      essentialOverride: z.array(z.string().min(1)).default([]).describe("Tool names always sent, never deferred."),
      // --- per-tool approval (issue 29) ---
      approval: z
        .record(z.string().min(1), ToolPolicy)
        .default({})
        .describe("Per tool (tools.approval.bash): allow runs it without asking, ask always asks, deny never runs it. The sandbox, calls outside the project and permission deny rules still apply."),
    })
    .prefault({}),
  retry: z
    .strictObject({
      maxRetries: count().default(10).describe("Retries of a failed provider request (rate limit, overload, network); 0 disables."),
      baseDelayMs: count().default(500).describe("First backoff before a retry, in ms; doubles on each retry."),
      idleTimeoutSeconds: z.number().int().min(1).max(3600).default(300).describe("A provider response silent for this long (no headers, no data) is given up and sent again."),
    })
    .prefault({}),
  compaction: z
    .strictObject({
      enabled: z.boolean().default(true).describe("Summarise older turns automatically when the context fills up."),
      reserveTokens: count().default(16384).describe("Tokens kept free for the next turn; compaction starts when the context would eat into them."),
      keepRecentTokens: count().default(20000).describe("The most recent tokens kept verbatim; older ones are summarised."),
      // --- compaction threshold (issue 29) ---
      thresholdPercent: z
        .number()
        .int()
        .min(-1)
        .max(100)
        .default(-1)
        .describe("Compact once the context passes this percentage of the model's window; -1 (or 0): when it would eat into reserveTokens."),
    })
    .prefault({}),
  bash: z
    .strictObject({
      timeoutSeconds: z.number().int().min(1).max(3600).default(300).describe("Default timeout of a bash tool call when the model does not give one."),
      // --- shell jobs (issue 24) ---
      autoBackgroundSeconds: z.number().int().min(0).max(3600).default(60).describe("A foreground command still running after this long continues as a background job the model is told of; 0 never."),
      maxLogBytes: z.number().int().min(4096).default(50 * 1024 * 1024).describe("A command's saved log keeps its head and a rolling tail past this size."),
    })
    .prefault({}),
  // --- bash interceptor (issue 29) ---
  bashInterceptor: z
    .strictObject({
      enabled: z.boolean().default(false).describe("Refuse bash commands that only read, search, find or edit files (cat, grep, find, sed -i, echo >) and point the model to read, grep, find, edit or write instead."),
    })
    .prefault({}),
  // --- read tool (issue 29) ---
  read: z
    .strictObject({
      defaultLimit: z.number().int().min(1).max(100_000).default(2000).describe("Lines read returns when the model gives no limit; the result says where to continue."),
    })
    .prefault({}),
  // Only the user's own files set it: an untrusted project's cannot, and a trusted project's is ignored (settings.ts).
  sandbox: z
    .strictObject({
      mode: z.enum(["read-only", "workspace-write", "off"]).default("workspace-write").describe("How the model's commands are confined: read-only, workspace-write (the project and temp dirs), or off."),
      network: z
        .union([z.enum(["off", "loopback", "allow"]), z.array(z.string().min(1))])
        .default("loopback")
        .describe("loopback (the session's private loopback: a server one command starts answers the next; nothing outside, not even the machine's loopback), off, allow, or the hosts a command may reach through omp's proxy."),
      writable: z.array(z.string().min(1)).default([]).describe("More writable dirs, besides the project, --add-dir dirs, temp dirs and the usual tool caches."),
      denyRead: z.array(z.string().min(1)).default([]).describe("More paths no command may read, besides the credential stores omp knows."),
      envAllow: z.array(z.string().min(1)).default([]).describe("Variables kept in commands' environments though named like secrets (GH_TOKEN for gh)."),
      allowSockets: z.array(z.string().min(1)).default([]).describe("Unix sockets (or dirs of them) commands may connect to besides the project's own, e.g. $SSH_AUTH_SOCK's path for git push over ssh; all others (ssh-agent, tmux, docker, D-Bus…) are hidden, in temp dirs too."),
    })
    .prefault({}),
  update: z
    .strictObject({
      channel: UpdateChannel.default("stable").describe("The release channel omp update follows."),
      checkForUpdates: z.boolean().default(true).describe("Look for a new release once a day in the interactive mode."),
    })
    .prefault({}),
  auth: z
    .strictObject({
      // Broker mode from the user's own config.yml only: a project's would send requests, and with them the broker token, elsewhere.
      broker: z
        .strictObject({
          url: z.string().min(1).optional().describe("Auth broker URL: a literal, an environment variable's name, or !command; OMP_AUTH_BROKER_URL wins."),
          token: z.string().min(1).optional().describe("Auth broker token: a literal, an environment variable's name, or !command; OMP_AUTH_BROKER_TOKEN wins."),
        })
        .prefault({}),
    })
    .prefault({}),
  // What a plugin install may unpack or copy (archives, folders, git checkouts): each refusal names the key that raises it.
  plugins: z
    .strictObject({
      maxSizeMB: z.number().int().min(1).default(512).describe("Total bytes a plugin may unpack to or copy, in MB."),
      maxEntries: z.number().int().min(1).default(100_000).describe("Files and folders in a plugin archive."),
      // Far above real packages (~5-10), far below a bomb (1000+).
      maxCompressionRatio: z.number().min(1).default(100).describe("Unpacked bytes per packed byte a plugin archive may have past its first MB."),
    })
    .prefault({}),
  mcp: z
    .strictObject({
      maxResultMB: z.number().min(0.001).default(8).describe("Largest tool result taken from an MCP server, in MB; a bigger one becomes a tool error and the server stays up."),
      maxDescriptionChars: z.number().int().min(100).default(2000).describe("MCP tool descriptions are cut to this many characters, with a note."),
      discoveryMode: z.boolean().optional().describe("The original omp's older switch: true, with tools.discoveryMode auto, defers every MCP tool (as mcp-only)."),
    })
    .prefault({}),
  theme: z
    .enum(["auto", "dark", "light"])
    .default("auto")
    .describe("The interactive mode's colours: auto follows the terminal's background; dark or light fixes them. OMP_THEME wins."),
  sessionDir: z.string().min(1).optional().describe("A directory that holds session files directly (relative to the working directory); unset: under the agent dir. --session-dir wins."),
  // Checked, and its problems reported one by one, by core/extensions/hooks/schema.ts when the hooks load, so that one bad hook does not make the whole file invalid.
  hooks: z.record(z.string(), z.unknown()).optional().describe("Claude Code's hooks: event → matcher groups of type: command hooks."),
  edit: z
    .strictObject({
      mode: EditMode.optional().describe("The edit tool's format; unset: apply_patch for GPT and Codex models, replace for the others. A model's models.yml editMode wins."),
    })
    .prefault({}),
  web: z
    .strictObject({
      allowHosts: z.array(z.string().min(1)).default([]).describe("Hosts (names or IPs, optionally host:port) web_fetch, web_search and project MCP servers may send to without asking, private or loopback ones included (as --allow-host); your config only, never a project's."),
      maxBytes: z.number().int().min(1024).default(10 * 1024 * 1024).describe("The largest body web_fetch downloads; a bigger one is an error, never cut silently."),
      timeoutSeconds: z.number().int().min(1).max(600).default(30).describe("Time for a whole fetch, redirects included."),
      cacheTtlSeconds: z.number().int().min(0).default(900).describe("How long a fetched page is served from the page cache (0: never cached)."),
      nativeSearch: z
        .boolean()
        .default(false)
        .describe("With no search provider configured, let the model search with its provider's own tool (Anthropic's web_search, OpenAI's hosted web_search, Gemini's Google Search grounding; billed per search); answers keep their citations as links."),
      // Beside their environment variables (BRAVE_API_KEY, EXA_API_KEY, TAVILY_API_KEY, PERPLEXITY_API_KEY, JINA_API_KEY, KAGI_API_KEY, SEARXNG_URL).
      search: z
        .strictObject({
          provider: z.enum(["brave", "exa", "tavily", "perplexity", "jina", "kagi", "searxng"]).optional().describe("The search provider when several are configured."),
          apiKey: z.string().min(1).optional().describe("The search provider's API key."),
          baseUrl: z.string().min(1).optional().describe("Points the search provider elsewhere (a proxy, a mirror)."),
        })
        .prefault({}),
    })
    .prefault({}),
  checkpoints: z
    .strictObject({
      enabled: z.boolean().default(true).describe("Record each file's content before omp writes it, and snapshot git work trees around commands, for /rewind and /undo."),
      maxBytes: z.number().int().min(1024).default(512 * 1024 * 1024).describe("Bytes of stored file contents per session; past it the least recently used go (those turns can no longer be restored)."),
    })
    .prefault({}),
  // Time-traveling stream rules (core/rules/ttsr.ts): the original omp's `ttsr.*`.
  ttsr: z
    .strictObject({
      enabled: z.boolean().default(true).describe("Watch the model's output for stream rules (rule files with a condition): on a match the reply is cut, the rule's text injected, and the turn asked again."),
      contextMode: z.enum(["discard", "keep"]).default("discard").describe("What happens to the output before the match: dropped, or its text kept in the conversation."),
      interruptMode: z.enum(INTERRUPT_MODES).default("always").describe("Which matches cut the stream (always, prose-only, tool-only); the others, and never, tell the rule after the reply or with the call's result."),
      repeatMode: z.enum(["once", "after-gap"]).default("once").describe("A rule fires once per session, or again after repeatGap turns."),
      repeatGap: z.number().int().min(1).default(10).describe("Completed turns before a rule may fire again (repeatMode after-gap)."),
      disabledRules: z.array(z.string()).default([]).describe("Rule names (file names without .md) that are not loaded."),
    })
    .prefault({}),
  // Language servers (core/lsp). Project values count only in a trusted folder.
  lsp: z
    .strictObject({
      enabled: z.boolean().default(true).describe("Start language servers at all; off: no server runs, the lsp tool says so."),
      diagnosticsOnWrite: z.boolean().default(true).describe("write and edit results carry the errors and warnings the change introduced."),
      formatOnWrite: z.boolean().default(false).describe("Format a written file with its language server before diagnostics."),
      servers: z.record(z.string(), z.unknown()).default({}).describe("Servers by name, in .lsp.json's shape, merged over the built-ins."),
    })
    .prefault({}),
  // --- memory (issue 42) ---
  // The original omp's names: `memory.backend` picks the backend, `mnemopi.*` tunes its local SQLite one.
  memory: z
    .strictObject({
      backend: z
        .enum(["off", "local", "mnemopi", "hindsight"])
        .default("local")
        .describe("Long-term memory across sessions: local (or mnemopi, the original omp's name) keeps it in SQLite in the agent dir and offers retain, recall and reflect; hindsight (a remote server) is not supported and counts as off; off: none."),
    })
    .prefault({}),
  mnemopi: z
    .strictObject({
      scoping: z
        .enum(["global", "per-project", "per-project-tagged"])
        .default("per-project")
        .describe("global: one bank shared by every project; per-project: each working directory its own bank; per-project-tagged: writes go to the project's bank, recall also reads the global one."),
      autoRecall: z.boolean().default(true).describe("A new session's first prompt brings the memories that match it best, then the newest, as a <memories> note for the model."),
      recallLimit: z.number().int().min(1).max(50).default(8).describe("Most memories recall and reflect return, and a first prompt brings."),
      // Far below the original's 5000: the first request stays under 24 KB with memories (request economy).
      injectionTokenLimit: z.number().int().min(0).max(20_000).default(300).describe("Approximate tokens of memories a first prompt brings (0: none)."),
      dbPath: z.string().min(1).optional().describe("The memory database; unset: memories/mnemopi/mnemopi.db in the agent dir."),
    })
    .prefault({}),
  // --- model roles (issue 29) ---
  /**
   * Models by role (the original omp's names): `default`, `smol` (titles, compaction summaries,
   * subagents without a model of their own), `slow`, `plan` (plan mode), or any custom role; each a
   * model pattern as `model` takes. models.yml's `modelRoles` are under these; `--smol`, `--slow`,
   * `--plan` and PI_SMOL_MODEL, PI_SLOW_MODEL, PI_PLAN_MODEL are over them.
   */
  modelRoles: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Live session sharing (/collab, omp join), as the original omp's settings. */
  collab: z
    .strictObject({
      relayUrl: z.string().min(1).default("wss://my.omp.sh").describe("The relay /collab shares through when none is given: a host (relay.example.com), wss://… or ws://localhost:port."),
      displayName: z.string().min(1).optional().describe("The name other participants of a shared session see (its first 64 characters); the OS user's when unset."),
      relayToken: z.string().min(1).optional().describe("The token a self-hosted relay asks hosts for (OMP_RELAY_TOKEN wins); sent only to the relay."),
    })
    .prefault({}),
  /** The ask tool's questions and plan mode's plan approval. */
  questions: z
    .strictObject({
      /** A question nobody answers within this long goes back to the model as unanswered, so no run waits forever; 0: wait. */
      timeoutSeconds: count().max(86400).default(600),
    })
    .prefault({}),
});
export type Settings = z.output<typeof Settings>;
/** What a settings file or a runtime override may contain: every key optional. */
export type SettingsInput = z.input<typeof Settings>;
