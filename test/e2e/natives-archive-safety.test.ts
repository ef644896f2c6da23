// A binary whose embedded archives were tampered with must refuse them before writing anything,
// and reads only the archive of the variant it loads.
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, doctor, nativesDirName, runOmp, tempDir } from "../support/omp.ts";

const platform = `${process.platform}-${process.arch}`;
const variants = process.arch === "x64" ? ["modern", "baseline"] : ["default"];
const addonName = (variant: string) => (variant === "default" ? `omp_natives.${platform}.node` : `omp_natives.${platform}-${variant}.node`);

async function sh(args: string[], cwd: string): Promise<void> {
  const child = Bun.spawn(args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const stderr = await new Response(child.stderr).text();
  if ((await child.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${stderr}`);
}

/** A staging dir holding the real addon, from which a crafted archive is made with GNU tar. */
function stage(variant: string): string {
  const dir = tempDir("omp-stage-");
  cpSync(join(ROOT, "native", "out", addonName(variant)), join(dir, addonName(variant)));
  return dir;
}

/** Builds an omp embedding the given archive for each variant (the packed one for the rest). */
async function buildWithArchives(archives: Record<string, string>): Promise<string> {
  const outfile = join(tempDir("omp-bin-"), "omp");
  const options = Object.entries(archives).flatMap(([variant, path]) => ["--natives-archive", `${variant}=${path}`]);
  await sh([process.execPath, join(ROOT, "embed", "build.ts"), "--skip-native", "--outfile", outfile, ...options], ROOT);
  return outfile;
}

/** One archive per variant, each made by `make` from a staging dir with that variant's addon. */
async function craftEach(make: (stageDir: string, archive: string, addon: string) => Promise<void>): Promise<Record<string, string>> {
  const archives: Record<string, string> = {};
  for (const variant of variants) {
    const archive = join(tempDir("omp-archive-"), `${variant}.tar`);
    await make(stage(variant), archive, addonName(variant));
    archives[variant] = archive;
  }
  return archives;
}

const cases: { name: string; expect: string; make: (stageDir: string, archive: string, addon: string) => Promise<void> }[] = [
  {
    name: "an entry climbing out with ../",
    expect: 'climbs out with ".."',
    make: async (dir, archive, addon) => {
      writeFileSync(join(dir, "evil.node"), "payload");
      await sh(["tar", "-cf", archive, "-P", "--transform", "s,^evil,../../evil,", addon, "evil.node"], dir);
    },
  },
  {
    name: "an entry with an absolute path",
    expect: "has an absolute path",
    make: async (dir, archive, addon) => {
      writeFileSync(join(dir, "evil.node"), "payload");
      await sh(["tar", "-cf", archive, "-P", "--transform", "s,^evil,/tmp/omp-evil-abs,", addon, "evil.node"], dir);
    },
  },
  {
    name: "a symlink entry",
    expect: "is a symlink",
    make: async (dir, archive, addon) => {
      symlinkSync("/etc/passwd", join(dir, "link.node"));
      await sh(["tar", "-cf", archive, addon, "link.node"], dir);
    },
  },
  {
    name: "an entry the manifest does not list",
    expect: "is not listed in the manifest",
    make: async (dir, archive, addon) => {
      writeFileSync(join(dir, "extra.node"), "payload");
      await sh(["tar", "-cf", archive, addon, "extra.node"], dir);
    },
  },
  {
    name: "an addon whose bytes were changed inside the archive",
    expect: "in the archive has sha256",
    make: async (dir, archive, addon) => {
      await sh(["tar", "-cf", archive, addon], dir);
      const bytes = readFileSync(archive);
      // Past the 512-byte header, inside the addon's data: the tar itself stays well formed.
      bytes[4096] = bytes[4096]! ^ 0xff;
      writeFileSync(archive, bytes);
    },
  },
];

function expectNothingExtracted(home: string): void {
  const versionDir = join(home, ".omp", "natives", nativesDirName());
  // The sandbox launcher has its own archive and checks; doctor extracts it to report the sandbox.
  expect(existsSync(versionDir) ? readdirSync(versionDir).filter((name) => !name.startsWith("omp-sandbox.")) : []).toEqual([]);
  expect(existsSync(join(home, "evil.node"))).toBe(false);
  expect(existsSync(join(home, ".omp", "evil.node"))).toBe(false);
  expect(existsSync("/tmp/omp-evil-abs")).toBe(false);
}

describe("crafted natives archives are refused", () => {
  const binaries = new Map<string, string>();
  beforeAll(async () => {
    for (const c of cases) binaries.set(c.name, await buildWithArchives(await craftEach(c.make)));
  }, 300_000);

  for (const c of cases) {
    test(c.name, async () => {
      const home = tempDir();
      const { code, report } = await doctor({ home, binary: binaries.get(c.name)! });
      expect(code).toBe(1);
      expect(report.nativesError).toContain("failed its safety check; nothing was extracted");
      expect(report.nativesError).toContain(c.expect);
      expect(report.nativesError).toContain("reinstall it from a verified release");
      expectNothingExtracted(home);

      const grep = await runOmp(["grep", "x"], { home, binary: binaries.get(c.name)! });
      expect(grep.code).toBe(2);
      expect(grep.stderr).toContain(c.expect);
    });
  }
});

describe.skipIf(variants.length < 2)("each variant has its own archive", () => {
  let binary: string;
  beforeAll(async () => {
    // The baseline archive is GNU tar's honest one; the modern one is not even a tar.
    const honest = join(tempDir("omp-archive-"), "baseline.tar");
    await sh(["tar", "-cf", honest, addonName("baseline")], stage("baseline"));
    const garbage = join(tempDir("omp-archive-"), "modern.tar");
    writeFileSync(garbage, Buffer.alloc(8192, 0x5a));
    binary = await buildWithArchives({ baseline: honest, modern: garbage });
  }, 120_000);

  test("a first run reads only the archive of the variant it loads", async () => {
    const home = tempDir();
    mkdirSync(join(home, "w"));
    writeFileSync(join(home, "w", "f.txt"), "hello\n");
    const env = { OMP_NATIVE_VARIANT: "baseline" };
    const grep = await runOmp(["grep", "hello"], { home, binary, cwd: join(home, "w"), env });
    expect(grep.stderr).toBe("");
    expect(grep.stdout).toBe("f.txt:1:hello\n");
    expect(readdirSync(join(home, ".omp", "natives", nativesDirName()))).toEqual([addonName("baseline")]);
  });

  test("the damaged archive is refused when its variant is the one to load", async () => {
    const home = tempDir();
    const { code, report } = await doctor({ home, binary, env: { OMP_NATIVE_VARIANT: "modern" } });
    expect(code).toBe(1);
    expect(report.nativesError).toContain("the embedded natives archive for modern is unreadable");
    expect(report.nativesError).toContain("failed its safety check; nothing was extracted");
    expectNothingExtracted(home);
  });
});
