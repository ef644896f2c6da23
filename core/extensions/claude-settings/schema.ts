import { z } from "zod";

/** Rule lists as real files hold them: strings kept, anything else dropped (and reported). */
const RuleList = z.array(z.unknown()).optional();

/**
 * Claude Code's settings.json, the parts omp takes (`hooks`, `permissions`, `env`,
 * `additionalDirectories`). Loose: the many other keys Claude knows (model, statusLine,
 * enabledPlugins, …) are kept and ignored, never an error.
 */
export const ClaudeSettingsFile = z.looseObject({
  permissions: z
    .looseObject({
      allow: RuleList,
      deny: RuleList,
      ask: RuleList,
      additionalDirectories: z.array(z.unknown()).optional(),
      defaultMode: z.string().optional(),
    })
    .optional(),
  hooks: z.record(z.string(), z.unknown()).optional(),
  env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  additionalDirectories: z.array(z.unknown()).optional(),
});
export type ClaudeSettingsFile = z.infer<typeof ClaudeSettingsFile>;
