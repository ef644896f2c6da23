// Who owns an installed omp: the package database is asked for system paths, so a packaged copy
// is left to its package manager even when omp could write over it (root).
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectInstallOwner } from "../../../core/update/install-owner.ts";
import { scratchDir } from "../config/scratch.ts";

/** A PATH holding only `name`, a query that claims `owned` and nothing else. */
function fakeManager(name: string, flag: string, owned: string): NodeJS.ProcessEnv {
  const dir = scratchDir("omp-fake-pm-");
  const script = join(dir, name);
  writeFileSync(script, `#!/bin/sh\n[ "$1" = "${flag}" ] && [ "$2" = "${owned}" ] && exit 0\nexit 1\n`);
  chmodSync(script, 0o755);
  return { PATH: dir, HOME: dir };
}

describe("package-managed installs", () => {
  test("a file dpkg, rpm or pacman lists is theirs, with the command to update it", () => {
    expect(detectInstallOwner(["/usr/bin/omp"], fakeManager("dpkg-query", "-S", "/usr/bin/omp"))).toEqual({ manager: "dpkg (apt)", command: "sudo apt install --only-upgrade omp" });
    expect(detectInstallOwner(["/usr/bin/omp"], fakeManager("rpm", "-qf", "/usr/bin/omp"))?.manager).toBe("rpm (dnf)");
    expect(detectInstallOwner(["/opt/omp/bin/omp"], fakeManager("pacman", "-Qo", "/opt/omp/bin/omp"))?.manager).toBe("pacman");
    // The resolved path counts too: /usr/local/bin/omp may be a link to the packaged file.
    expect(detectInstallOwner(["/usr/local/bin/omp", "/usr/lib/omp/omp"], fakeManager("dpkg-query", "-S", "/usr/lib/omp/omp"))?.manager).toBe("dpkg (apt)");
  });

  test("a file no database lists, or paths outside the system's, are not asked about", () => {
    expect(detectInstallOwner(["/usr/local/bin/omp"], fakeManager("dpkg-query", "-S", "/usr/bin/omp"))).toBeNull();
    // A query that would claim everything is not even run for a per-user install.
    const claimsAll = scratchDir("omp-fake-pm-");
    writeFileSync(join(claimsAll, "dpkg-query"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(claimsAll, "dpkg-query"), 0o755);
    expect(detectInstallOwner([join(claimsAll, ".local", "bin", "omp")], { PATH: claimsAll, HOME: claimsAll })).toBeNull();
    // No package manager installed at all.
    expect(detectInstallOwner(["/usr/local/bin/omp"], { PATH: scratchDir("omp-empty-path-") })).toBeNull();
  });
});
