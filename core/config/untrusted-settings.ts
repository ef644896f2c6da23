import type { Mapping } from "./config-file.ts";

/**
 * What a project `.omp/config.yml` may set while its folder is untrusted: an allow-list, so a key
 * added to the schema later stays out until someone decides it is harmless. Left out: `update`
 * (which builds get installed), `sessionDir` (where transcripts are written), and anything else
 * new. `approvalMode` is kept only when it asks at least as often as the user's own setting.
 */
const HARMLESS = new Set(["model", "modelRoles", "thinking", "tools", "retry", "compaction", "bash", "theme"]);

/** A key an untrusted project may set; trust is pinned to the others (core/trust/pinned-parts.ts). */
export const isHarmlessKey = (key: string) => HARMLESS.has(key);

const STRICTNESS: Record<string, number> = { yolo: 0, write: 1, "always-ask": 2 };

export interface FilteredValues {
  values: Mapping;
  /** The keys left out, as shown to the user (`approvalMode: yolo`, `update`). */
  skipped: string[];
}

/** The project layer's values an untrusted folder may give, against the user's approval mode. */
export function untrustedSettings(values: Mapping, userApprovalMode: string): FilteredValues {
  const kept: Mapping = {};
  const skipped: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (key === "approvalMode") {
      if ((STRICTNESS[String(value)] ?? 0) >= (STRICTNESS[userApprovalMode] ?? 0)) kept[key] = value;
      else skipped.push(`approvalMode: ${String(value)}`);
    } else if (HARMLESS.has(key)) kept[key] = value;
    else skipped.push(key);
  }
  return { values: kept, skipped };
}
