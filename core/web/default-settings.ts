import { Settings } from "../config/settings-schema.ts";
import type { WebSettings } from "../tools/types.ts";

/** The `web` defaults, for callers without a session's settings (rpc's direct commands, tests). */
export function defaultWebSettings(): WebSettings {
  return Settings.parse({}).web;
}
