import { loadSettings } from "../config/settings.ts";
import { homeDir } from "../paths.ts";

/** How big a plugin may be, from `plugins.*` in the user's config.yml (see settings-schema.ts). */
export interface PluginLimits {
  maxBytes: number;
  maxEntries: number;
  maxCompressionRatio: number;
}

/** The user's own limits: a project's config cannot raise what a plugin install may unpack. */
export function pluginLimits(): PluginLimits {
  const { plugins } = loadSettings({ cwd: homeDir(), trusted: true }).settings;
  return { maxBytes: plugins.maxSizeMB * 1024 * 1024, maxEntries: plugins.maxEntries, maxCompressionRatio: plugins.maxCompressionRatio };
}
