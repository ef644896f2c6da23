import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import type { ReleaseTarget } from "./release-manifest.ts";

/**
 * The release build this machine should run, decided the way install.sh decides it: OS and
 * architecture, musl or glibc (from the ELF interpreter of the running binary, which says exactly
 * which libc it was linked for), AVX2 (Bun's regular x64 runtime needs it; without it the baseline
 * build), and Rosetta (an arm64 Mac running the x64 build gets the native one).
 */

const PT_INTERP = 3;

/** The PT_INTERP path of a 64-bit little-endian ELF file, or null when there is none. */
function elfInterpreter(path: string): string | null {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(64);
    if (readSync(fd, header, 0, 64, 0) < 64 || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2) return null;
    const phoff = Number(header.readBigUInt64LE(0x20));
    const phentsize = header.readUInt16LE(0x36);
    const phnum = header.readUInt16LE(0x38);
    const table = Buffer.alloc(phentsize * phnum);
    readSync(fd, table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) {
      const entry = i * phentsize;
      if (table.readUInt32LE(entry) !== PT_INTERP) continue;
      const offset = Number(table.readBigUInt64LE(entry + 8));
      const size = Number(table.readBigUInt64LE(entry + 32));
      const name = Buffer.alloc(size);
      readSync(fd, name, 0, size, offset);
      return name.toString("latin1").replace(/\0+$/, "");
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

function cpuHasAvx2(): boolean {
  try {
    const flags = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((line) => line.startsWith("flags"));
    // Unknown means "assume the common case": the binary that is running already works here.
    return flags === undefined || /\bavx2\b/.test(flags);
  } catch {
    return true;
  }
}

function runningUnderRosetta(): boolean {
  const result = Bun.spawnSync(["sysctl", "-n", "sysctl.proc_translated"], { stdout: "pipe", stderr: "ignore" });
  return result.exitCode === 0 && result.stdout.toString().trim() === "1";
}

export function currentTarget(executable: string = process.execPath): ReleaseTarget | null {
  const arch = process.arch;
  if (arch !== "x64" && arch !== "arm64") return null;
  switch (process.platform) {
    case "linux": {
      let musl = false;
      try {
        musl = /ld-musl/.test(elfInterpreter(executable) ?? "");
      } catch {}
      if (musl) return arch === "x64" ? "linux-x64-musl" : "linux-arm64-musl";
      if (arch === "arm64") return "linux-arm64";
      return cpuHasAvx2() ? "linux-x64" : "linux-x64-baseline";
    }
    case "darwin":
      return arch === "arm64" || runningUnderRosetta() ? "darwin-arm64" : "darwin-x64";
    case "win32":
      return arch === "x64" ? "windows-x64" : null;
    default:
      return null;
  }
}
