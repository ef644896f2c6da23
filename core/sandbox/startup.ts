import type { SettingsLayer } from "../config/settings.ts";
import type { Settings } from "../config/settings-schema.ts";
import { OmpError } from "../errors/omp-error.ts";
import { describeSupport, type SandboxSupport, sandboxSupport } from "./launcher-status.ts";
import { SANDBOX_MODES, type SandboxMode } from "./policy.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/** Parses `--sandbox`; exit code 2 with the valid modes otherwise. */
export function parseSandboxMode(value: string): SandboxMode {
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new OmpError(`--sandbox: unknown mode ${JSON.stringify(value)}. Valid modes: ${SANDBOX_MODES.join(", ")}.`, { exitCode: EXIT_USAGE });
}

/**
 * Where the machine cannot sandbox commands, says so once, and makes commands ask first (approval
 * mode `write`) unless the user chose an approval mode; where it can only without namespaces, says
 * which walls are missing. Returns the line to show, if any.
 */
export function sandboxStartup(settings: Settings, layers: readonly SettingsLayer[], found?: SandboxSupport): string | undefined {
  if (settings.sandbox.mode === "off") return undefined;
  const support = found ?? sandboxSupport();
  // Confined, but with walls missing (processes, sockets, protected paths, the loopback network): said once.
  if (support.kind === "landlock" && !support.namespaces) return `${describeSupport(support)}; commands have no network.`;
  if (support.kind !== "none") return undefined;
  const chosen = layers.some((layer) => "approvalMode" in layer.values);
  if (!chosen && settings.approvalMode === "yolo") settings.approvalMode = "write";
  return `${describeSupport(support)}.${chosen ? "" : " Commands will ask before running (approval mode write)."}`;
}
