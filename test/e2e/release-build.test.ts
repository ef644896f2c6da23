// release/build.ts: what a release holds, that it is signed and consistent, the Homebrew formula,
// the completions, and install.sh's hygiene.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ReleaseManifest } from "../../core/update/release-manifest.ts";
import { OFFICIAL_RELEASE_KEY } from "../../core/update/release-key.ts";
import { ROOT, sha256File, tempDir } from "../support/omp.ts";
import { type ReleaseFixture, TARGET, VERSION_A, VERSION_B, releaseFixture } from "../support/release-fixture.ts";

// Each install moves and hashes a 115 MB binary a few times.
setDefaultTimeout(60_000);

let fixture: ReleaseFixture;
beforeAll(async () => {
  fixture = await releaseFixture();
}, 20 * 60_000);

const pubPem = (base64: string) => `-----BEGIN PUBLIC KEY-----\n${base64}\n-----END PUBLIC KEY-----\n`;

function tarList(archive: string): string[] {
  return execFileSync("tar", ["-tvzf", archive], { encoding: "utf8" }).trim().split("\n");
}

describe("a release directory", () => {
  test("holds the binary, archive, bundle, installer, manifest, sums, signature and formula", () => {
    const files = readdirSync(fixture.dir(VERSION_A)).sort();
    expect(files).toEqual(
      [
        "SHA256SUMS",
        "SHA256SUMS.sig",
        "install.sh",
        "manifest.json",
        `omp-${VERSION_A}-${TARGET}-offline.tar.gz`,
        `omp-${VERSION_A}-${TARGET}.tar.gz`,
        `omp-${TARGET}`,
        "omp.rb",
      ].sort(),
    );
  });

  test("each binary reports its own version", () => {
    for (const version of [VERSION_A, VERSION_B]) {
      expect(execFileSync(fixture.binary(version), ["--version"], { encoding: "utf8" })).toBe(`omp/${version}\n`);
    }
  });

  test("SHA256SUMS verifies with openssl and the release key, and sha256sum -c agrees", () => {
    const dir = fixture.dir(VERSION_A);
    const pub = join(tempDir(), "release.pub");
    writeFileSync(pub, pubPem(fixture.publicKey));
    const verify = spawnSync("openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", join(dir, "SHA256SUMS"), "-sigfile", join(dir, "SHA256SUMS.sig")], {
      encoding: "utf8",
    });
    expect(verify.stdout).toContain("Signature Verified Successfully");
    const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: dir, encoding: "utf8" });
    expect(check.status).toBe(0);
    expect(check.stdout.trim().split("\n").sort()).toEqual(
      ["install.sh", "manifest.json", `omp-${VERSION_A}-${TARGET}.tar.gz`, `omp-${TARGET}`].map((name) => `${name}: OK`).sort(),
    );
  });

  test("the manifest follows the schema and matches the files", () => {
    const dir = fixture.dir(VERSION_B);
    const manifest = ReleaseManifest.parse(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")));
    expect(manifest.version).toBe(VERSION_B);
    expect(manifest.channel).toBe("canary");
    const entry = manifest.targets[TARGET as keyof typeof manifest.targets]!;
    for (const artifact of [entry, entry.binary]) {
      expect(statSync(join(dir, artifact.file)).size).toBe(artifact.size);
      expect(sha256File(join(dir, artifact.file))).toBe(artifact.sha256);
    }
  });

  test("channel pointers: stable at A, canary at B; the served install.sh is A's", () => {
    const pointer = (channel: string) => JSON.parse(readFileSync(join(fixture.root, "channels", `${channel}.json`), "utf8"));
    expect(pointer("stable")).toMatchObject({ channel: "stable", version: VERSION_A });
    expect(pointer("canary")).toMatchObject({ channel: "canary", version: VERSION_B });
    expect(readFileSync(join(fixture.root, "install.sh"), "utf8")).toBe(readFileSync(join(fixture.dir(VERSION_A), "install.sh"), "utf8"));
  });

  test("the archive: omp (executable), LICENSE, README and completions under one top-level dir", () => {
    const lines = tarList(join(fixture.dir(VERSION_A), `omp-${VERSION_A}-${TARGET}.tar.gz`));
    const top = `omp-${VERSION_A}-${TARGET}`;
    const names = lines.map((line) => line.split(/\s+/).at(-1));
    expect(names).toEqual(
      expect.arrayContaining([`${top}/omp`, `${top}/LICENSE`, `${top}/README.md`, `${top}/completions/omp.bash`, `${top}/completions/_omp`, `${top}/completions/omp.fish`]),
    );
    expect(lines.find((line) => line.endsWith(`${top}/omp`))).toStartWith("-rwxr-xr-x");
    const extracted = tempDir();
    execFileSync("tar", ["-xzf", join(fixture.dir(VERSION_A), `omp-${VERSION_A}-${TARGET}.tar.gz`), "-C", extracted]);
    expect(sha256File(join(extracted, top, "omp"))).toBe(sha256File(fixture.binary(VERSION_A)));
  });

  test("the offline bundle: binary, SHA256SUMS, signature, install.sh and OFFLINE.md", () => {
    const top = `omp-${VERSION_A}-${TARGET}-offline`;
    const names = tarList(join(fixture.dir(VERSION_A), `${top}.tar.gz`)).map((line) => line.split(/\s+/).at(-1));
    expect(names).toEqual(
      expect.arrayContaining([`${top}/omp-${TARGET}`, `${top}/SHA256SUMS`, `${top}/SHA256SUMS.sig`, `${top}/install.sh`, `${top}/OFFLINE.md`]),
    );
  });
});

describe("the Homebrew formula", () => {
  test("passes ruby -c", () => {
    const result = spawnSync("ruby", ["-c", join(fixture.dir(VERSION_A), "omp.rb")], { encoding: "utf8" });
    expect(result.stdout).toContain("Syntax OK");
  });

  test("its urls and sha256 are the manifest's; it tests --version and has a livecheck", () => {
    const dir = fixture.dir(VERSION_A);
    const formula = readFileSync(join(dir, "omp.rb"), "utf8");
    const manifest = ReleaseManifest.parse(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")));
    const urls = [...formula.matchAll(/^\s*url "([^"]+)"\n\s*sha256 "([0-9a-f]{64})"/gm)].map((match) => ({ url: match[1], sha256: match[2] }));
    const expected = Object.values(manifest.targets).map((entry) => ({ url: `https://omp.sh/releases/${VERSION_A}/${entry.file}`, sha256: entry.sha256 }));
    expect(urls).toEqual(expected);
    expect(formula).toContain(`version "${VERSION_A}"`);
    expect(formula).toContain('shell_output("#{bin}/omp --version")');
    expect(formula).toMatch(/livecheck do\n\s+url "https:\/\/omp\.sh\/releases\/channels\/stable\.json"/);
  });
});

describe("install.sh", () => {
  test("is clean under shellcheck as POSIX sh, and parses under dash and bash", () => {
    for (const script of [join(ROOT, "release", "install.sh"), join(fixture.root, "install.sh")]) {
      const lint = spawnSync("shellcheck", ["-s", "sh", script], { encoding: "utf8" });
      expect(lint.stdout + lint.stderr).toBe("");
      expect(lint.status).toBe(0);
      for (const shell of ["dash", "bash"]) expect(spawnSync(shell, ["-n", script]).status).toBe(0);
    }
  });

  test("the repository's copy carries the official key; a release's copy carries its signing key", () => {
    const keyLine = (path: string) => /^OMP_RELEASE_PUBKEY='([^']*)'$/m.exec(readFileSync(path, "utf8"))?.[1];
    expect(keyLine(join(ROOT, "release", "install.sh"))).toBe(OFFICIAL_RELEASE_KEY);
    expect(keyLine(join(fixture.dir(VERSION_A), "install.sh"))).toBe(fixture.publicKey);
  });
});

describe("shell completions", () => {
  const completions = () => {
    const dir = tempDir();
    execFileSync("tar", ["-xzf", join(fixture.dir(VERSION_A), `omp-${VERSION_A}-${TARGET}.tar.gz`), "-C", dir]);
    return join(dir, `omp-${VERSION_A}-${TARGET}`, "completions");
  };

  test("bash completes commands, nested subcommands and options", () => {
    const dir = completions();
    const complete = (...words: string[]) =>
      execFileSync("bash", ["-c", `source ${join(dir, "omp.bash")}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _omp; echo "\${COMPREPLY[*]}"`], {
        encoding: "utf8",
      }).trim();
    expect(complete("omp", "up")).toBe("update");
    expect(complete("omp", "config", "s")).toBe("set");
    expect(complete("omp", "update", "--ch")).toBe("--check --channel");
    expect(complete("omp", "grep", "--fixed")).toBe("--fixed-strings");
    const lint = spawnSync("shellcheck", ["-s", "bash", join(dir, "omp.bash")], { encoding: "utf8" });
    expect(lint.stdout).toBe("");
  });

  test("zsh and fish files list the same commands", () => {
    const dir = completions();
    const zsh = readFileSync(join(dir, "_omp"), "utf8");
    const fish = readFileSync(join(dir, "omp.fish"), "utf8");
    expect(zsh.startsWith("#compdef omp\n")).toBe(true);
    for (const command of ["update", "doctor", "grep", "config"]) {
      expect(zsh).toContain(`'${command}:`);
      expect(fish).toContain(`-a ${command} `);
    }
    expect(fish).toContain("-l channel -x -a 'stable canary'");
  });
});

describe("release/build.ts", () => {
  test("refuses to build without OMP_RELEASE_KEY, and says how to make one", () => {
    const env = { ...process.env };
    delete env.OMP_RELEASE_KEY;
    const result = spawnSync(join(ROOT, "node_modules", ".bin", "bun"), [join(ROOT, "release", "build.ts"), "--version", "9.9.9", "--out", tempDir()], {
      env,
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("OMP_RELEASE_KEY is not set");
    expect(result.stderr).toContain("openssl genpkey -algorithm ed25519");
  });
});
