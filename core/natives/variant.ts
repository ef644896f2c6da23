import { readFileSync } from "node:fs";
import type { Variant } from "./manifest.ts";

export interface VariantChoice {
  /** Variants to try, best first. */
  order: Variant[];
  /** Why the first one was chosen, for `omp doctor`. */
  reason: string;
}

export function platformTag(): string {
  return `${process.platform}-${process.arch}`;
}

// x86-64-v3 is more than AVX2: the modern build may use any of these, so all must be present.
const X86_64_V3_FLAGS = ["avx2", "bmi1", "bmi2", "fma", "movbe", "abm", "f16c"];

function missingV3Flags(): string[] | null {
  try {
    const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
    // The first CPU's line is enough; splitting all of a many-core cpuinfo costs start-up time.
    const newline = cpuinfo.indexOf("\nflags");
    const start = cpuinfo.startsWith("flags") ? 0 : newline === -1 ? -1 : newline + 1;
    if (start === -1) return null;
    const end = cpuinfo.indexOf("\n", start);
    const flagsLine = cpuinfo.slice(start, end === -1 ? undefined : end);
    const flags = new Set(flagsLine.slice(flagsLine.indexOf(":") + 1).trim().split(/\s+/));
    return X86_64_V3_FLAGS.filter((flag) => !flags.has(flag));
  } catch {
    return null;
  }
}

/** Picks the CPU variant of the addon: an explicit override, else a CPU feature probe. */
export function chooseVariant(env: NodeJS.ProcessEnv = process.env, arch: string = process.arch): VariantChoice {
  if (arch !== "x64") return { order: ["default"], reason: `${arch} has a single build` };
  const requested = env.OMP_NATIVE_VARIANT;
  if (requested === "modern") return { order: ["modern", "baseline"], reason: "OMP_NATIVE_VARIANT=modern" };
  if (requested === "baseline") return { order: ["baseline"], reason: "OMP_NATIVE_VARIANT=baseline" };
  const ignored = requested ? `OMP_NATIVE_VARIANT=${JSON.stringify(requested)} ignored (use modern or baseline); ` : "";
  if (process.platform !== "linux") {
    return { order: ["baseline"], reason: `${ignored}no CPU probe on ${process.platform}, baseline is safe` };
  }
  const missing = missingV3Flags();
  if (missing === null) return { order: ["baseline"], reason: `${ignored}/proc/cpuinfo unreadable, baseline is safe` };
  if (missing.length > 0) return { order: ["baseline"], reason: `${ignored}CPU lacks ${missing.join(", ")}` };
  return { order: ["modern", "baseline"], reason: `${ignored}CPU has AVX2 and the rest of x86-64-v3` };
}
