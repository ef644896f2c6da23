import { sandboxLauncher } from "../natives/launcher.ts";

/** How model commands can be confined on this machine. */
export type SandboxSupport =
  | { kind: "landlock"; launcher: string; abi: number; namespaces: boolean }
  | { kind: "bubblewrap"; bwrap: string; why: string; launcher?: string }
  | { kind: "none"; why: string };

function findSupport(): SandboxSupport {
  if (process.platform !== "linux") return { kind: "none", why: `no sandbox for ${process.platform} yet` };
  const launcher = sandboxLauncher();
  let why: string;
  let usable: string | undefined;
  if ("path" in launcher) {
    usable = launcher.path;
    if (launcher.abi > 0) return { kind: "landlock", launcher: launcher.path, abi: launcher.abi, namespaces: launcher.namespaces };
    why = "this kernel has no Landlock (or it is disabled)";
  } else {
    why = launcher.error;
  }
  const bwrap = Bun.which("bwrap");
  // The launcher without Landlock still holds the session's loopback network for bubblewrap.
  if (bwrap) return { kind: "bubblewrap", bwrap, why, ...(usable ? { launcher: usable } : {}) };
  return { kind: "none", why: `${why}, and bubblewrap (bwrap) is not installed` };
}

let support: SandboxSupport | null = null;

/** Found once per process: one `--probe` run of the launcher (about a millisecond). */
export function sandboxSupport(): SandboxSupport {
  support ??= findSupport();
  return support;
}

/** One line for `omp doctor` and the start-up notice. */
export function describeSupport(value: SandboxSupport = sandboxSupport()): string {
  switch (value.kind) {
    case "landlock":
      return value.namespaces
        ? `Landlock ABI ${value.abi} + seccomp + PID/mount namespaces (${value.launcher})`
        : `Landlock ABI ${value.abi} + seccomp, without PID/mount namespaces (user namespaces unavailable: other processes, Unix sockets and protected workspace paths are not guarded) (${value.launcher})`;
    case "bubblewrap":
      return `bubblewrap ${value.bwrap} (${value.why})`;
    case "none":
      return `NOT SANDBOXED: model commands run with your full access (${value.why})`;
  }
}
