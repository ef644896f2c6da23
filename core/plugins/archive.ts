import { readdirSync } from "node:fs";
import { posix } from "node:path";
import { OmpError } from "../errors/omp-error.ts";

/** Bigger than any plugin with its dependencies; a tarball claiming more is refused before it fills the disk. */
const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;

function escapes(path: string): boolean {
  const normal = posix.normalize(path.replace(/\\/g, "/"));
  return posix.isAbsolute(normal) || normal === ".." || normal.startsWith("../") || /^[A-Za-z]:/.test(path);
}

/**
 * Why an archive must not be unpacked, or null: an entry with an absolute path or `..`, a link
 * leading out of the folder it unpacks into, a device or fifo, or more bytes than a plugin needs.
 * Checked over the whole archive before anything is written.
 */
async function problemsOf(file: string, strip: number): Promise<string[]> {
  const { t } = await import("tar");
  const problems: string[] = [];
  let total = 0;
  await t({
    file,
    onReadEntry: (entry) => {
      const path = entry.path;
      const inner = path.split("/").slice(strip).join("/");
      if (escapes(path) || path.split(/[\\/]/).includes("..")) problems.push(`${JSON.stringify(path)} leads outside the folder`);
      else if (entry.type === "SymbolicLink" || entry.type === "Link") {
        const target = entry.type === "SymbolicLink" ? posix.join(posix.dirname(inner), entry.linkpath ?? "") : (entry.linkpath ?? "").split("/").slice(strip).join("/");
        if (posix.isAbsolute(entry.linkpath ?? "") || escapes(target)) problems.push(`${JSON.stringify(path)} is a link to ${JSON.stringify(entry.linkpath)}, outside the folder`);
      } else if (!["File", "OldFile", "ContiguousFile", "Directory", "GNUDumpDir"].includes(entry.type) && !entry.meta) {
        problems.push(`${JSON.stringify(path)} is a ${entry.type}, not a file or folder`);
      }
      total += entry.size ?? 0;
      entry.resume();
    },
  });
  if (total > MAX_UNPACKED_BYTES) problems.push(`it unpacks to ${total} bytes, more than the ${MAX_UNPACKED_BYTES} a plugin may have`);
  return problems;
}

/** Unpacks a .tgz into `dest` (which must exist), dropping `strip` leading path parts, after checking every entry. */
export async function extractArchive(file: string, dest: string, what: string, strip = 1): Promise<void> {
  let problems: string[];
  try {
    problems = await problemsOf(file, strip);
  } catch (error) {
    throw new OmpError(`${what} is not a readable .tgz (${(error as Error).message}); it is damaged or not an archive`);
  }
  if (problems.length > 0) throw new OmpError(`${what} is unsafe and was not unpacked: ${problems.slice(0, 3).join("; ")}`);
  const { x } = await import("tar");
  await x({ file, cwd: dest, strip, preservePaths: false, preserveOwner: false, noChmod: false });
}

/** Writes `dir`'s contents as a .tgz whose entries sit under `package/`, npm's layout. */
export async function packDirectory(dir: string, out: string): Promise<void> {
  const { c } = await import("tar");
  await c({ gzip: true, file: out, cwd: dir, prefix: "package", portable: true }, readdirSync(dir));
}
