import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { OmpError } from "../errors/omp-error.ts";
import { DEFAULT_FETCH_POLICY, type FetchPolicy, downloadFile, fetchBytes } from "./http.ts";
import { ARCHIVED_BINARY, type ReleaseTarget, binaryFileName } from "./release-manifest.ts";
import { sha256Hex } from "./sha256sums.ts";
import { writeStaged } from "./staging-errors.ts";
import { RELEASE_ARCHIVE_LIMITS, findEntry, isGzip, readTarGz } from "./tarball.ts";
import { VerifiedSums } from "./verified-sums.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

/**
 * `omp update --from <file|url>`: the offline bundle (binary, SHA256SUMS and its signature in one
 * .tar.gz), a release archive, or a bare binary. The last two need SHA256SUMS and SHA256SUMS.sig
 * beside them (in the same directory, or at the same URL path). Whatever the form, the binary is
 * accepted only when the signed SHA256SUMS lists it as this target's build.
 */

const MAX_DOWNLOAD = RELEASE_ARCHIVE_LIMITS.compressedBytes;

function isUrl(from: string): boolean {
  return /^https?:\/\//i.test(from);
}

/** Refuses what is not a release file before a byte of it is read: a dir, a device, a pipe, a huge file. */
function checkLocalFile(from: string): void {
  let stat;
  try {
    stat = statSync(from);
  } catch {
    throw new OmpError(`${from} does not exist`, { exitCode: EXIT_USAGE });
  }
  if (stat.isDirectory()) {
    throw new OmpError(
      `${from} is a directory; give the file: the offline bundle (omp-<version>-<target>-offline.tar.gz), a release archive or a binary${
        existsSync(join(from, "SHA256SUMS")) ? ` in it (an unpacked bundle's binary is ${join(from, "omp-<target>")})` : ""
      }`,
      { exitCode: EXIT_USAGE },
    );
  }
  if (!stat.isFile()) throw new OmpError(`${from} is not a regular file (a device or a pipe); give a release file`, { exitCode: EXIT_USAGE });
  if (stat.size > MAX_DOWNLOAD) throw new OmpError(`${from} is ${Math.round(stat.size / 1024 ** 2)} MiB, more than any omp release file; refusing it`, { exitCode: EXIT_USAGE });
  if (stat.size === 0) throw new OmpError(`${from} is empty; give a release file`, { exitCode: EXIT_USAGE });
}

/** The file at `from`, downloaded into `workDir` when it is a URL. */
async function localCopy(from: string, workDir: string, policy: FetchPolicy): Promise<string> {
  if (!isUrl(from)) {
    checkLocalFile(from);
    return from;
  }
  const path = join(workDir, "from");
  await downloadFile(from, path, `the release file ${from}`, { maxBytes: MAX_DOWNLOAD }, policy);
  return path;
}

async function siblingSums(from: string, policy: FetchPolicy): Promise<{ text: Uint8Array; signature: Uint8Array; where: string }> {
  if (isUrl(from)) {
    const dir = from.replace(/[?#].*$/, "").replace(/\/[^/]*$/, "");
    const text = await fetchBytes(`${dir}/SHA256SUMS`, "SHA256SUMS", 1024 * 1024, policy);
    const signature = await fetchBytes(`${dir}/SHA256SUMS.sig`, "SHA256SUMS.sig", 4096, policy);
    return { text, signature, where: dir };
  }
  const dir = dirname(from);
  const sums = join(dir, "SHA256SUMS");
  const sig = join(dir, "SHA256SUMS.sig");
  if (!existsSync(sums) || !existsSync(sig)) {
    throw new OmpError(
      `${basename(from)} needs SHA256SUMS and SHA256SUMS.sig from its release in the same directory (${dir}) to be verified; ` +
        "copy them along, or use the offline bundle (omp-<version>-<target>-offline.tar.gz), which carries them",
    );
  }
  return { text: readFileSync(sums), signature: readFileSync(sig), where: dir };
}

/**
 * Verifies the binary in `from` and writes it to `staged`. Nothing is executed before the checksum
 * and signature are known good.
 */
export async function stageFromLocal(
  from: string,
  target: ReleaseTarget,
  key: string,
  workDir: string,
  staged: string,
  policy: FetchPolicy = DEFAULT_FETCH_POLICY,
): Promise<void> {
  const path = await localCopy(from, workDir, policy);
  const wanted = binaryFileName(target);
  let binary: Uint8Array | undefined;
  let sums: VerifiedSums;
  if (isGzip(path)) {
    const { files, names } = await readTarGz(path, from, [wanted, ARCHIVED_BINARY, "SHA256SUMS", "SHA256SUMS.sig"]);
    const bundledSums = findEntry(files, "SHA256SUMS");
    const bundledSig = findEntry(files, "SHA256SUMS.sig");
    if (bundledSums && bundledSig) {
      sums = VerifiedSums.verify(bundledSums, bundledSig, key, from);
      binary = findEntry(files, wanted);
      if (!binary) {
        const carried = names.map((name) => basename(name)).filter((name) => name.startsWith("omp-") && !name.endsWith(".md"));
        throw new OmpError(`${from} carries no ${wanted} (it has ${carried.join(", ") || "no omp binary"}); get the bundle for ${target}`);
      }
    } else {
      const found = await siblingSums(from, policy);
      sums = VerifiedSums.verify(found.text, found.signature, key, found.where);
      binary = findEntry(files, ARCHIVED_BINARY);
      if (!binary) throw new OmpError(`${from} is a .tar.gz without an omp binary in it`);
    }
  } else {
    const found = await siblingSums(from, policy);
    sums = VerifiedSums.verify(found.text, found.signature, key, found.where);
    binary = readFileSync(path);
  }
  const sha256 = sha256Hex(binary);
  if (sums.sha256Of(wanted) !== sha256) {
    const actually = sums.nameOf(sha256);
    throw new OmpError(
      actually
        ? `${from} holds ${actually}, not the ${target} build (${wanted}) this machine needs`
        : `the binary in ${from} is not listed in its release's SHA256SUMS: it was tampered with or damaged, or SHA256SUMS belongs to another release. Nothing was changed.`,
    );
  }
  writeStaged(staged, binary);
}
