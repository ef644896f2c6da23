import { statSync } from "node:fs";
import { formatBytes } from "../format-bytes.ts";
import { ArchiveError } from "./archive-error.ts";
import { isZipPath } from "./detect.ts";
import { MAX_MEMBER_BYTES } from "./limits.ts";
import { walkTar } from "./tar.ts";
import { fileAccess, readZipEntry, type ZipEntry, zipEntries } from "./zip.ts";

export interface ArchiveEntry {
  /** Normalized: no leading `./` or `/`, folders without their trailing `/`. */
  path: string;
  size: number;
  directory: boolean;
  /** The name as stored, when it leads outside the archive (`..`, absolute): listed, never read. */
  unsafe?: string;
}

export interface OpenArchive {
  entries: ArchiveEntry[];
  read(path: string): Promise<Uint8Array>;
  close(): Promise<void>;
}


/** `inner` as an archive path; `..` and absolute paths are refused: nothing is ever read from outside the archive. */
export function memberPath(inner: string, archiveName: string): string {
  const parts = inner.replace(/\\/g, "/").split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new ArchiveError("unsafe-path", `${archiveName}:${inner}: archive paths may not contain "..".`);
  return parts.join("/");
}

function normalizeStored(name: string): { path: string; unsafe?: string } {
  const clean = name.replace(/\\/g, "/");
  const parts = clean.split("/").filter((part) => part !== "" && part !== ".");
  if (clean.startsWith("/") || parts.includes("..") || /^[A-Za-z]:/.test(clean)) return { path: parts.filter((p) => p !== "..").join("/"), unsafe: name };
  return { path: parts.join("/") };
}

/** Indexes a .zip (its central directory only) or a .tar/.tar.gz/.tgz (streamed, entry by entry). Nothing is written to disk. */
export async function openArchive(file: string, name: string): Promise<OpenArchive> {
  return isZipPath(file) ? openZip(file, name) : openTar(file, name);
}

async function openZip(file: string, name: string): Promise<OpenArchive> {
  const access = await fileAccess(file);
  let entries: ZipEntry[];
  try {
    entries = await zipEntries(access, name);
  } catch (error) {
    await access.close();
    throw error;
  }
  const byPath = new Map<string, ZipEntry>();
  const listed = entries.map((entry) => {
    const normal = normalizeStored(entry.name);
    if (!normal.unsafe && !entry.directory) byPath.set(normal.path, entry);
    return { path: normal.path, size: entry.size, directory: entry.directory, ...(normal.unsafe ? { unsafe: normal.unsafe } : {}) };
  });
  return {
    entries: listed,
    async read(path) {
      const entry = byPath.get(path);
      if (!entry) throw new ArchiveError("not-found", `${name} has no file ${path}.`);
      return readZipEntry(access, entry, name);
    },
    close: () => access.close(),
  };
}

async function openTar(file: string, name: string): Promise<OpenArchive> {
  const packedSize = statSync(file).size;
  const entries: ArchiveEntry[] = [];
  await walkTar(file, name, packedSize, (member) => {
    const normal = normalizeStored(member.name);
    entries.push({ path: normal.path, size: member.size, directory: member.type === "directory", ...(normal.unsafe ? { unsafe: normal.unsafe } : {}) });
    return "skip";
  });
  return {
    entries,
    async read(path) {
      const wanted = entries.find((entry) => entry.path === path && !entry.directory && !entry.unsafe);
      if (!wanted) throw new ArchiveError("not-found", `${name} has no file ${path}.`);
      if (wanted.size > MAX_MEMBER_BYTES) throw new ArchiveError("too-large", `${name}:${path} is ${formatBytes(wanted.size)}, over the ${formatBytes(MAX_MEMBER_BYTES)} limit for one member; extract it with bash (tar xf … -O) if you need it.`);
      let data: Uint8Array = new Uint8Array(0);
      await walkTar(
        file,
        name,
        packedSize,
        (member) => {
          const normal = normalizeStored(member.name);
          return normal.path === path && !normal.unsafe && member.type !== "directory" ? "read" : "skip";
        },
        (bytes) => (data = bytes),
      );
      return data;
    },
    close: async () => {},
  };
}

/** The immediate children of folder `dir` ("" for the root), folders implied by deeper paths included. */
export function archiveChildren(entries: ArchiveEntry[], dir: string): { name: string; size: number; directory: boolean }[] | undefined {
  const prefix = dir === "" ? "" : `${dir}/`;
  const children = new Map<string, { name: string; size: number; directory: boolean }>();
  let exists = dir === "";
  for (const entry of entries) {
    if (entry.unsafe || !entry.path.startsWith(prefix) || entry.path === dir) {
      if (entry.path === dir && entry.directory) exists = true;
      continue;
    }
    exists = true;
    const rest = entry.path.slice(prefix.length);
    const slash = rest.indexOf("/");
    const child = slash === -1 ? rest : rest.slice(0, slash);
    const directory = slash !== -1 || entry.directory;
    if (!children.has(child) || directory) children.set(child, { name: child, size: directory ? 0 : entry.size, directory });
  }
  return exists ? [...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : undefined;
}

