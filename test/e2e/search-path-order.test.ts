// Path order comes from a walk split across threads (native/crates/search/src/walk/sorted.rs).
// On a repository wide enough to be split, with ignore files at several levels and patterns by
// path as well as by name, `omp grep` and `omp find` must still print exactly what
// `rg --sort path` prints, whatever root is named and however it is spelled.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { cleanEnv, runOmp, tempDir } from "../support/omp.ts";

let home: string;
let repo: string;
let link: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(() => {
  home = tempDir();
  const base = tempDir("omp-order-");
  repo = join(base, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  write(join(repo, ".gitignore"), "*.log\n/top-only.txt\npkg03/generated/\npkg07/src/skip.ts\n");
  write(join(repo, ".ignore"), "by-dot-ignore.ts\n");
  write(join(repo, "top-only.txt"), "needle top\n");
  write(join(repo, "readme.txt"), "needle readme\n");
  for (let p = 0; p < 16; p++) {
    const pkg = join(repo, `pkg${String(p).padStart(2, "0")}`);
    for (let f = 0; f < 6; f++) write(join(pkg, "src", `file${f}.ts`), `const needle${f} = ${p};\n`);
    write(join(pkg, "src", "skip.ts"), "needle skip\n");
    write(join(pkg, "generated", "out.ts"), "needle generated\n");
    write(join(pkg, "by-dot-ignore.ts"), "needle dot ignore\n");
    write(join(pkg, "debug.log"), "needle log\n");
    write(join(pkg, ".hidden.ts"), "needle hidden\n");
  }
  // A nested ignore file: it whitelists what the top one ignores and anchors its own pattern.
  write(join(repo, "pkg05", ".gitignore"), "!*.log\n/src/file1.ts\n");
  link = join(base, "link");
  symlinkSync(repo, link);
});

async function rg(cwd: string, args: string[]): Promise<string> {
  const child = Bun.spawn(["rg", "--no-config", "-n", "--no-heading", "--sort", "path", "--color", "never", ...args], {
    cwd,
    env: cleanEnv(home),
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Response(child.stdout).text();
}

describe("omp grep in path order prints what rg --sort path prints", () => {
  const cases: [string, string[]][] = [
    ["the default root", ["needle"]],
    ["a relative root", ["needle", "pkg05"]],
    ["the root as .", ["needle", "."]],
    ["hidden files", ["--hidden", "needle"]],
    ["globs by path", ["-g", "pkg0*/src/*.ts", "-g", "!pkg02/**", "needle"]],
    ["files with matches", ["-l", "needle"]],
    ["counts", ["-c", "needle"]],
  ];
  for (const [name, args] of cases) {
    test(name, async () => {
      const ours = await runOmp(["grep", ...args], { home, cwd: repo });
      expect(ours.stdout).toBe(await rg(repo, args));
      expect(ours.stdout).toContain("pkg05/src/file0.ts");
    });
  }

  test("an absolute root and one through a symlink", async () => {
    for (const root of [repo, link, `${repo}/pkg00/..`]) {
      const ours = await runOmp(["grep", "needle", root], { home, cwd: home });
      expect(ours.stdout).toBe(await rg(home, ["needle", root]));
    }
  });

  test("the ignore files took effect", async () => {
    const ours = (await runOmp(["grep", "needle"], { home, cwd: repo })).stdout;
    expect(ours).toContain("pkg05/debug.log");
    expect(ours).not.toContain("pkg03/generated");
    expect(ours).toContain("pkg04/generated");
    expect(ours).not.toContain("pkg05/src/file1.ts");
    expect(ours).not.toContain("top-only.txt");
  });
});

describe("omp find in path order lists what rg --files --sort path lists", () => {
  for (const [name, root, cwd] of [
    ["the default root", undefined, () => repo],
    ["a relative root", "pkg05", () => repo],
    ["the default root, entered through a symlink", undefined, () => link],
  ] as const) {
    test(name, async () => {
      const args = root ? ["*.ts", root] : ["*.ts"];
      const ours = await runOmp(["find", ...args], { home, cwd: cwd() });
      // Filtered here, not with rg's -g: a -g glob overrides ignore files, which find does not do.
      const child = Bun.spawn(["rg", "--no-config", "--files", "--sort", "path", ...(root ? [root] : [])], {
        cwd: cwd(),
        env: cleanEnv(home),
        stdio: ["ignore", "pipe", "ignore"],
      });
      const listed = (await new Response(child.stdout).text()).split("\n").filter((path) => path.endsWith(".ts"));
      expect(ours.stdout).toBe(listed.map((path) => `${path}\n`).join(""));
      expect(ours.stdout).toContain("pkg05/src/file0.ts");
    });
  }
});
