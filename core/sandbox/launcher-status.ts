import { sandboxLauncher } from "../natives/launcher.ts";

/** How model commands can be confined on this machine. */
export type SandboxSupport =
  | { kind: "landlock"; launcher: string; abi: number }
  | { kind: "bubblewrap"; bwrap: string; why: string }
  | { kind: "none"; why: string };

function findSupport(): SandboxSupport {
  if (process.platform !== "linux") return { kind: "none", why: `no sandbox for ${process.platform} yet` };
  const launcher = sandboxLauncher();
  let why: string;
  if ("path" in launcher) {
    if (launcher.abi > 0) return { kind: "landlock", launcher: launcher.path, abi: launcher.abi };
    why = "this kernel has no Landlock (or it is disabled)";
  } else {
    why = launcher.error;
  }
  const bwrap = Bun.which("bwrap");
  if (bwrap) return { kind: "bubblewrap", bwrap, why };
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
      return `Landlock ABI ${value.abi} + seccomp (${value.launcher})`;
    case "bubblewrap":
      return `bubblewrap ${value.bwrap} (${value.why})`;
    case "none":
      return `NOT SANDBOXED: model commands run with your full access (${value.why})`;
  }
}
