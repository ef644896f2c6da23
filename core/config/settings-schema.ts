import { z } from "zod";
import { ThinkingLevel } from "../ai/model-schema.ts";

/**
 * Every setting omp reads from config.yml, with its default. The one source of truth: files are
 * validated against it, `omp config` lists, parses and checks keys with it, and the types below
 * come from it. Objects are strict so that a misspelt key is an error instead of a silent no-op.
 */

/** `always-ask`: every tool call waits for approval; `write`: only calls that change files or run commands; `yolo`: none. */
export const ApprovalMode = z.enum(["always-ask", "write", "yolo"]);
export type ApprovalMode = z.infer<typeof ApprovalMode>;

export const UpdateChannel = z.enum(["stable", "canary"]);
export type UpdateChannel = z.infer<typeof UpdateChannel>;

const count = () => z.number().int().min(0);

/** The edit tool's format (see core/tools/edit/): old→new text, a diff, line numbers, or the Codex patch envelope. */
export const EditMode = z.enum(["replace", "patch", "hashline", "apply_patch"]);
export type EditMode = z.infer<typeof EditMode>;

export const Settings = z.strictObject({
  /** The model when `--model` is not given: `provider/id`, a bare id or a fuzzy name, with an optional `:thinking` suffix. */
  model: z.string().min(1).optional(),
  /**
   * Reasoning effort for models that support it. `medium` rather than `off`: coding tasks gain much
   * from some reasoning, and the highest levels cost more than a default should.
   */
  thinking: ThinkingLevel.default("medium"),
  approvalMode: ApprovalMode.default("yolo"),
  tools: z
    .strictObject({
      /** Tool names the model never sees. */
      disabled: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  retry: z
    .strictObject({
      /** Retries of a failed provider request (rate limit, overload, network); 0 disables. */
      maxRetries: count().default(10),
      /** First backoff; doubles on each retry. */
      baseDelayMs: count().default(500),
      /** A provider response silent for this long (no headers, no data) is given up and sent again. */
      idleTimeoutSeconds: z.number().int().min(1).max(3600).default(300),
    })
    .prefault({}),
  compaction: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Tokens kept free for the next turn; compaction starts when the context would eat into them. */
      reserveTokens: count().default(16384),
      /** The most recent tokens kept verbatim; older ones are summarised. */
      keepRecentTokens: count().default(20000),
    })
    .prefault({}),
  bash: z
    .strictObject({
      /** Default timeout of a bash tool call when the model does not give one. */
      timeoutSeconds: z.number().int().min(1).max(3600).default(300),
      // --- shell jobs (issue 24) ---
      /** A foreground command still running after this long continues as a background job the model is told of; 0 never. */
      autoBackgroundSeconds: z.number().int().min(0).max(3600).default(60),
      /** A command's saved log keeps its head and a rolling tail past this size. */
      maxLogBytes: z.number().int().min(4096).default(50 * 1024 * 1024),
    })
    .prefault({}),
  /** How the model's commands are confined (core/sandbox). Only the user's own files set it: an untrusted project's cannot. */
  sandbox: z
    .strictObject({
      mode: z.enum(["read-only", "workspace-write", "off"]).default("workspace-write"),
      /**
       * `off` (the machine's loopback too), `loopback` (a private loopback for the command's own
       * servers), `allow`, or the hosts a command may reach through omp's proxy.
       */
      network: z.union([z.enum(["off", "loopback", "allow"]), z.array(z.string().min(1))]).default("off"),
      /** More writable dirs, besides the project, --add-dir dirs, temp dirs and the usual tool caches. */
      writable: z.array(z.string().min(1)).default([]),
      /** More paths no command may read, besides the credential stores omp knows. */
      denyRead: z.array(z.string().min(1)).default([]),
      /** Variables kept in commands' environments though named like secrets (GH_TOKEN for gh). */
      envAllow: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  update: z
    .strictObject({
      channel: UpdateChannel.default("stable"),
      checkForUpdates: z.boolean().default(true),
    })
    .prefault({}),
  auth: z
    .strictObject({
      /**
       * Broker mode from the user's own config.yml (a project's is ignored: it would send requests,
       * and with them the broker token, elsewhere). Each is a literal, the name of an environment
       * variable, or `!command` whose output is the value; OMP_AUTH_BROKER_URL/_TOKEN win over them.
       */
      broker: z
        .strictObject({
          url: z.string().min(1).optional(),
          token: z.string().min(1).optional(),
        })
        .prefault({}),
    })
    .prefault({}),
  /** What a plugin install may unpack or copy (archives, folders, git checkouts): each refusal names the key that raises it. */
  plugins: z
    .strictObject({
      /** Total bytes a plugin may unpack to or copy, in MB. */
      maxSizeMB: z.number().int().min(1).default(512),
      /** Files and folders in a plugin archive. */
      maxEntries: z.number().int().min(1).default(100_000),
      /** Unpacked bytes per packed byte past the first MB: far above real packages (~5-10), far below a bomb (1000+). */
      maxCompressionRatio: z.number().min(1).default(100),
    })
    .prefault({}),
  /** Limits on what MCP servers send back. */
  mcp: z
    .strictObject({
      /** Largest tool result taken from a server, in MB; a bigger one becomes a tool error and the server stays up. */
      maxResultMB: z.number().min(0.001).default(8),
      /** Tool descriptions from servers are cut to this many characters, with a note. */
      maxDescriptionChars: z.number().int().min(100).default(2000),
    })
    .prefault({}),
  /**
   * The interactive mode's colours: `auto` follows the terminal's background (asked with OSC 11,
   * then COLORFGBG); `dark` or `light` fixes them. The OMP_THEME environment variable wins over it.
   */
  theme: z.enum(["auto", "dark", "light"]).default("auto"),
  /**
   * A directory that holds session files directly (relative to the working directory). Unset:
   * `<agent dir>/sessions/<encoded cwd>/`. `--session-dir` overrides it for one run.
   */
  sessionDir: z.string().min(1).optional(),
  /**
   * Claude Code's hooks (event → matcher groups of `type: command` hooks). Checked, and its
   * problems reported one by one, by core/extensions/hooks/schema.ts when the hooks load, so that
   * one bad hook does not make the whole file invalid.
   */
  hooks: z.record(z.string(), z.unknown()).optional(),
  edit: z
    .strictObject({
      /** Unset: apply_patch for GPT and Codex models, replace for the others; a model's models.yml `editMode` wins. */
      mode: EditMode.optional(),
    })
    .prefault({}),
  web: z
    .strictObject({
      /**
       * Hosts (names or IP addresses, optionally `host:port`) web_fetch may reach although they are
       * private, loopback or link-local; any other such address needs the user's approval.
       */
      allowHosts: z.array(z.string().min(1)).default([]),
      /** The largest body web_fetch downloads; a bigger one is an error, never cut silently. */
      maxBytes: z.number().int().min(1024).default(10 * 1024 * 1024),
      /** Time for a whole fetch, redirects included. */
      timeoutSeconds: z.number().int().min(1).max(600).default(30),
      /** How long a fetched page is served from the page cache (0: never cached). */
      cacheTtlSeconds: z.number().int().min(0).default(900),
      /**
       * With no search provider configured, let the model search with its provider's own tool
       * (Anthropic's server-side web_search, OpenAI Responses' hosted web_search, Gemini's Google
       * Search grounding; billed by the provider per search); answers keep their citations as links.
       */
      nativeSearch: z.boolean().default(false),
      /**
       * Search providers beside their environment variables (BRAVE_API_KEY, EXA_API_KEY,
       * TAVILY_API_KEY, PERPLEXITY_API_KEY, JINA_API_KEY, KAGI_API_KEY, SEARXNG_URL). `provider`
       * picks one when several are configured; `baseUrl` points a provider elsewhere (a proxy, a mirror).
       */
      search: z
        .strictObject({
          provider: z.enum(["brave", "exa", "tavily", "perplexity", "jina", "kagi", "searxng"]).optional(),
          apiKey: z.string().min(1).optional(),
          baseUrl: z.string().min(1).optional(),
        })
        .prefault({}),
    })
    .prefault({}),
  /** Language servers (core/lsp): diagnostics after write/edit, the lsp tool. Project values count only in a trusted folder. */
  lsp: z
    .strictObject({
      /** Start language servers at all; off: no server runs, the lsp tool says so. */
      enabled: z.boolean().default(true),
      /** write and edit results carry the errors and warnings the change introduced. */
      diagnosticsOnWrite: z.boolean().default(true),
      /** Format a written file with its server (textDocument/formatting) before diagnostics. */
      formatOnWrite: z.boolean().default(false),
      /** Servers by name, in .lsp.json's shape (core/lsp/server-config.ts checks them); merged over the built-ins. */
      servers: z.record(z.string(), z.unknown()).default({}),
    })
    .prefault({}),
});
export type Settings = z.output<typeof Settings>;
/** What a settings file or a runtime override may contain: every key optional. */
export type SettingsInput = z.input<typeof Settings>;
