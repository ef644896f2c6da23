import { readlinkSync } from "node:fs";

/** The inode of a process's network namespace (`net:[4026531840]`), undefined when it is gone. */
function netInode(pid: number | "self"): number | undefined {
  try {
    return Number(/\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/ns/net`))?.[1]);
  } catch {
    return undefined;
  }
}

/** How long the first command may wait for the holder to make the network. */
const READY_WITHIN_MS = 3000;

let held: { pid: number; inode: number } | null | undefined;

/**
 * The session's loopback network (`sandbox.network: loopback`): made once by `omp-sandbox
 * --hold-net`, which keeps it until omp's end of its stdin closes (omp exits, however), and joined
 * by every command, so a server one command starts in the background answers the next one's
 * `curl localhost`. Undefined when it cannot be made: each command then gets a loopback of its own.
 */
export function sessionNetwork(launcher: string): { pid: number; inode: number } | undefined {
  if (held !== undefined && (held === null || netInode(held.pid) === held.inode)) return held ?? undefined;
  const own = netInode("self");
  const holder = Bun.spawn([launcher, "--hold-net"], { stdin: "pipe", stdout: "ignore", stderr: "ignore" });
  holder.unref();
  // The holder switches namespaces last (after any user namespace's id maps): a new inode means ready.
  const deadline = Date.now() + READY_WITHIN_MS;
  let inode = netInode(holder.pid);
  while (inode === own && holder.exitCode === null && Date.now() < deadline) {
    Bun.sleepSync(1);
    inode = netInode(holder.pid);
  }
  if (inode === undefined || inode === own) {
    holder.kill();
    held = null;
    return undefined;
  }
  held = { pid: holder.pid, inode };
  return held;
}
