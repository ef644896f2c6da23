import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { type CatalogEntry, resolveRelativeSource } from "./catalog.ts";
import { cloneRepo, githubUrl } from "./git.ts";
import { installNpmPackage } from "./npm.ts";
import { copyPluginDir } from "./copy.ts";

/** A plugin fetched into `dir` (a fresh staging folder), with what pins it. */
export interface Fetched {
  dir: string;
  sha?: string;
  version?: string;
}

/** Brings a catalog entry's plugin into `staging/plugin`, from whichever of the source kinds it names. */
export async function fetchEntry(entry: CatalogEntry, marketplaceRoot: string | null, pluginRoot: string | undefined, staging: string, cwd: string): Promise<Fetched> {
  const dir = join(staging, "plugin");
  const source = entry.source;
  if (typeof source === "string" || source.source === "directory") {
    const path = typeof source === "string" ? source : source.path;
    if (marketplaceRoot === null) {
      throw new OmpError(`plugin ${entry.name} has the relative source "${path}", but its marketplace was added from a catalog URL, which has no folder; add the marketplace's git repository instead`);
    }
    copyPluginDir(resolveRelativeSource(marketplaceRoot, pluginRoot, path), dir);
    return { dir };
  }
  switch (source.source) {
    case "github":
    case "url":
    case "git": {
      const url = source.source === "github" ? githubUrl(source.repo) : source.url;
      const sha = await cloneRepo(url, join(staging, "clone"), { ref: source.ref, sha: source.sha });
      copyPluginDir(join(staging, "clone"), dir);
      return { dir, sha };
    }
    case "git-subdir": {
      const clone = join(staging, "clone");
      const sha = await cloneRepo(source.url, clone, { ref: source.ref, sha: source.sha });
      const sub = resolve(clone, source.path);
      const rel = relative(realpathSync(clone), existsSync(sub) ? realpathSync(sub) : sub);
      if (rel.startsWith("..") || isAbsolute(rel)) throw new OmpError(`plugin ${entry.name}: path "${source.path}" leads outside its repository; refused`);
      if (!existsSync(sub)) throw new OmpError(`plugin ${entry.name}: ${source.url} has no folder ${source.path}`);
      copyPluginDir(sub, dir);
      return { dir, sha };
    }
    case "npm": {
      mkdirSync(dir, { recursive: true });
      const scratch = join(staging, "downloads");
      mkdirSync(scratch, { recursive: true });
      const { version } = await installNpmPackage(source.package, source.version ?? "latest", dir, cwd, scratch);
      rmSync(scratch, { recursive: true, force: true });
      return { dir, version };
    }
  }
}
