import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { isSecretName } from "./env.ts";

/**
 * Overwrites the values of secret variables in this process's original environment block, the one
 * /proc/<pid>/environ shows: the model's commands are omp's children, and Landlock does not stop a
 * child reading its parent's environ. The runtime keeps its own copy of the environment (process.env
 * and what children get are unchanged); only C code calling getenv for these names would see the
 * blanks. Linux only; any failure leaves things as they were.
 */
export function hideSecretsFromProcEnviron(): void {
  if (process.platform !== "linux") return;
  let fd: number | undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the parenthesised name start at field 3; env_start and env_end are fields 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!(start > 0 && end > start && end - start < 1 << 20)) return;
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    let offset = 0;
    while (offset < block.length) {
      const nul = block.indexOf(0, offset);
      const stop = nul === -1 ? block.length : nul;
      const eq = block.indexOf(0x3d, offset);
      if (eq !== -1 && eq < stop && isSecretName(block.toString("latin1", offset, eq)) && stop > eq + 1) {
        const blank = Buffer.alloc(stop - eq - 1, "*");
        writeSync(fd, blank, 0, blank.length, start + eq + 1);
      }
      offset = stop + 1;
    }
  } catch {
    // Not worth failing a start over: the command environment is cleaned anyway.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
