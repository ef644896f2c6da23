import type { Kernel, KernelLanguage } from "./kernel.ts";

/**
 * Each session's retained kernels, one per language, without loading the kernel code: the agent
 * ends them with its session (agent.end), and only sessions that ran a cell have any.
 */
const kernels = new WeakMap<object, Map<KernelLanguage, Kernel>>();

export function sessionKernels(owner: object): Map<KernelLanguage, Kernel> {
  let map = kernels.get(owner);
  if (!map) {
    map = new Map();
    kernels.set(owner, map);
  }
  return map;
}

/** The session is over: its kernels end with it. */
export function endSessionKernels(owner: object): void {
  for (const kernel of kernels.get(owner)?.values() ?? []) kernel.dispose();
  kernels.delete(owner);
}
