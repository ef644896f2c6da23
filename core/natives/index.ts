import { loadNatives } from "./load.ts";
import type { NativeAddon } from "./api.ts";

export type * from "./api.ts";

/** The native addon, loaded on first use: commands that never search never pay for it. */
export function natives(): NativeAddon {
  return loadNatives().addon;
}

/** Errors the addon throws carry a `code`; see NativeErrorCode. */
export function nativeErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
