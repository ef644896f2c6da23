import { sep } from "node:path";

/** Whether absolute `path` is `root` or lies under it (by name: resolve symlinks first where they matter). */
export const isWithin = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
