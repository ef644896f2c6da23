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
});
export type Settings = z.output<typeof Settings>;
/** What a settings file or a runtime override may contain: every key optional. */
export type SettingsInput = z.input<typeof Settings>;
