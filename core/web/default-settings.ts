import { Settings } from "../config/settings-schema.ts";

export type WebSettings = Settings["web"];

/** The `web` defaults, for callers without a session's settings (rpc's direct commands, tests). */
export function defaultWebSettings(): WebSettings {
  return Settings.parse({}).web;
}
