import { cpSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, dirname } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { PluginLimitError } from "./limit-error.ts";
import { formatBytes } from "../http/body-limit.ts";
import { type PluginLimits, pluginLimits } from "./limits.ts";

/** A file whose allocated blocks cover less than this share of its length is sparse: mostly holes a copy would fill. */
const SPARSE_SHARE = 0.5;

/**
 * Copies a plugin folder from a marketplace, a git checkout or a local path. Checked first, over
 * the whole tree: a symlink leading out of the folder (it would copy, or later expose, a file of
 * this machine the plugin does not own), a FIFO, device or socket (a copy would hang or read a
 * device), a sparse file (gigabytes of holes written out whole), and a total over the size limit.
 * `.git` is left behind.
 */
export function copyPluginDir(from: string, to: string, limits: PluginLimits = pluginLimits()): void {
  const root = realpathSync(from);
  let total = 0;
  let entries = 0;
  const check = (dir: string, dependencies: boolean) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (++entries > limits.maxEntries) throw new PluginLimitError("plugins.maxEntries", limits.maxEntries, `it has more than ${limits.maxEntries} files and folders`, `${root} was not copied`);
      if (stat.isSymbolicLink()) {
        if (dependencies) continue;
        const target = resolve(dirname(path), readlinkSync(path));
        const rel = relative(root, target);
        if (rel.startsWith("..") || isAbsolute(rel)) throw new OmpError(`${path} is a link leading outside the plugin folder (to ${target}); refused`);
      } else if (stat.isDirectory()) {
        if (name !== ".git") check(path, dependencies || name === "node_modules");
      } else if (!stat.isFile()) {
        const kind = stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : "a device";
        throw new OmpError(`${path} is ${kind}, not a file or folder; a plugin cannot hold one, so it was not copied`);
      } else {
        if (stat.size > 1024 * 1024 && stat.blocks * 512 < stat.size * SPARSE_SHARE) {
          throw new OmpError(`${path} is a sparse file (${formatBytes(stat.size)} long, ${formatBytes(stat.blocks * 512)} on disk); a plugin does not need one, so it was not copied`);
        }
        total += stat.size;
        if (total > limits.maxBytes) {
          throw new PluginLimitError("plugins.maxSizeMB", limits.maxBytes, `it holds more than ${formatBytes(limits.maxBytes)}`, `${root} was not copied`);
        }
      }
    }
  };
  check(root, false);
  cpSync(root, to, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.split(/[\\/]/).includes(".git") });
}
