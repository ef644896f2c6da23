// A binary whose embedded archive was tampered with must refuse it before writing anything.
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, VERSION, doctor, runOmp, tempDir } from "../support/omp.ts";

const platform = `${process.platform}-${process.arch}`;
const variants = process.arch === "x64" ? ["modern", "baseline"] : [];
const addonNames = variants.length ? variants.map((v) => `omp_natives.${platform}-${v}.node`) : [`omp_natives.${platform}.node`];

async function sh(args: string[], cwd: string): Promise<void> {
  const child = Bun.spawn(args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const stderr = await new Response(child.stderr).text();
  if ((await child.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${stderr}`);
}

/** A staging dir holding the real addons, from which each crafted archive is made with GNU tar. */
function stage(): string {
  const dir = tempDir("omp-stage-");
  for (const name of addonNames) cpSync(join(ROOT, "native", "out", name), join(dir, name));
  return dir;
}

async function buildWithArchive(archive: string): Promise<string> {
  const outfile = join(tempDir("omp-bin-"), "omp");
  await sh([process.execPath, join(ROOT, "embed", "build.ts"), "--skip-native", "--outfile", outfile, "--natives-archive", archive], ROOT);
  return outfile;
}

const cases: { name: string; expect: string; make: (stageDir: string, archive: string) => Promise<void> }[] = [
  {
    name: "an entry climbing out with ../",
    expect: 'climbs out with ".."',
    make: async (dir, archive) => {
      writeFileSync(join(dir, "evil.node"), "payload");
      await sh(["tar", "-czf", archive, "-P", "--transform", "s,^evil,../../evil,", ...addonNames, "evil.node"], dir);
    },
  },
  {
    name: "an entry with an absolute path",
    expect: "has an absolute path",
    make: async (dir, archive) => {
      writeFileSync(join(dir, "evil.node"), "payload");
      await sh(["tar", "-czf", archive, "-P", "--transform", "s,^evil,/tmp/omp-evil-abs,", ...addonNames, "evil.node"], dir);
    },
  },
  {
    name: "a symlink entry",
    expect: "is a symlink",
    make: async (dir, archive) => {
      symlinkSync("/etc/passwd", join(dir, "link.node"));
      await sh(["tar", "-czf", archive, ...addonNames, "link.node"], dir);
    },
  },
  {
    name: "an entry the manifest does not list",
    expect: "is not listed in the manifest",
    make: async (dir, archive) => {
      writeFileSync(join(dir, "extra.node"), "payload");
      await sh(["tar", "-czf", archive, ...addonNames, "extra.node"], dir);
    },
  },
];

describe("crafted natives archives are refused", () => {
  const binaries = new Map<string, string>();
  beforeAll(async () => {
    for (const c of cases) {
      const dir = stage();
      const archive = join(tempDir("omp-archive-"), "natives.tar.gz");
      await c.make(dir, archive);
      binaries.set(c.name, await buildWithArchive(archive));
    }
  }, 300_000);

  for (const c of cases) {
    test(c.name, async () => {
      const home = tempDir();
      const { code, report } = await doctor({ home, binary: binaries.get(c.name)! });
      expect(code).toBe(1);
      expect(report.nativesError).toContain("failed its safety check; nothing was extracted");
      expect(report.nativesError).toContain(c.expect);
      expect(report.nativesError).toContain("reinstall it from a verified release");
      const versionDir = join(home, ".omp", "natives", VERSION);
      expect(existsSync(versionDir) ? readdirSync(versionDir) : []).toEqual([]);
      expect(existsSync(join(home, "evil.node"))).toBe(false);
      expect(existsSync(join(home, ".omp", "evil.node"))).toBe(false);
      expect(existsSync("/tmp/omp-evil-abs")).toBe(false);

      const grep = await runOmp(["grep", "x"], { home, binary: binaries.get(c.name)! });
      expect(grep.code).toBe(2);
      expect(grep.stderr).toContain(c.expect);
    });
  }

  test("the same build with an honest archive works", async () => {
    const dir = stage();
    const archive = join(tempDir("omp-archive-"), "natives.tar.gz");
    await sh(["tar", "-czf", archive, ...addonNames], dir);
    const binary = await buildWithArchive(archive);
    const home = tempDir();
    mkdirSync(join(home, "w"));
    writeFileSync(join(home, "w", "f.txt"), "hello\n");
    const grep = await runOmp(["grep", "hello"], { home, binary, cwd: join(home, "w") });
    expect(grep.stderr).toBe("");
    expect(grep.stdout).toBe("f.txt:1:hello\n");
  });
});
