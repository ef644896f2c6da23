import { cpSync, lstatSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, dirname } from "node:path";
import { OmpError } from "../errors/omp-error.ts";

/**
 * Copies a plugin folder from a marketplace or a local path. A symlink inside that leads out of
 * the folder is refused (it would copy, or later expose, a file of this machine the plugin does
 * not own); `.git` is left behind.
 */
export function copyPluginDir(from: string, to: string): void {
  const root = realpathSync(from);
  const check = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) {
        const target = resolve(dirname(path), readlinkSync(path));
        const rel = relative(root, target);
        if (rel.startsWith("..") || isAbsolute(rel)) throw new OmpError(`${path} is a link leading outside the plugin folder (to ${target}); refused`);
      } else if (stat.isDirectory() && name !== ".git" && name !== "node_modules") check(path);
    }
  };
  check(root);
  cpSync(root, to, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.split(/[\\/]/).includes(".git") });
}
