import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  clearSkippedForTrust,
  folderTrust,
  forgetFolderTrust,
  noteSkippedForTrust,
  readTrustStore,
  setFolderTrust,
  skippedForTrust,
  trustStorePath,
  untrustedNotice,
} from "../../../core/trust/folder-trust.ts";
import { tempDir } from "../../support/temp.ts";

const savedHome = process.env.HOME;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = tempDir("omp-trust-home-");
  process.env.HOME = home;
  env = { HOME: home };
  clearSkippedForTrust();
});
afterEach(() => {
  process.env.HOME = savedHome;
  clearSkippedForTrust();
});

function project(name = "repo"): string {
  const dir = join(home, "code", name);
  mkdirSync(join(dir, "sub", "deeper"), { recursive: true });
  return dir;
}

describe("folderTrust", () => {
  test("a folder is untrusted until decided; the decision covers everything under it", () => {
    const repo = project();
    expect(folderTrust(repo, { env })).toEqual({ trusted: false, source: "default", folder: repo });
    setFolderTrust(repo, true, env);
    expect(folderTrust(join(repo, "sub", "deeper"), { env })).toEqual({ trusted: true, source: "stored", folder: repo });
    expect(folderTrust(join(home, "code"), { env }).trusted).toBe(false);
  });

  test("the nearest decision wins: an untrusted folder inside a trusted one stays untrusted", () => {
    const repo = project();
    setFolderTrust(repo, true, env);
    setFolderTrust(join(repo, "sub"), false, env);
    expect(folderTrust(join(repo, "sub", "deeper"), { env })).toEqual({ trusted: false, source: "stored", folder: join(repo, "sub") });
    expect(folderTrust(repo, { env }).trusted).toBe(true);
  });

  test("the home dir itself and ~/.omp are the user's own; a folder under home is not", () => {
    expect(folderTrust(home, { env })).toMatchObject({ trusted: true, source: "home" });
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    expect(folderTrust(join(home, ".omp", "agent"), { env })).toMatchObject({ trusted: true, source: "omp-dir" });
    expect(folderTrust(project(), { env }).trusted).toBe(false);
  });

  test("--trust trusts for the run without storing anything", () => {
    const repo = project();
    expect(folderTrust(repo, { env, runFlag: true })).toMatchObject({ trusted: true, source: "run-flag" });
    expect(readTrustStore(env).folders).toEqual({});
  });

  test("decisions are keyed by real path: a symlink to a trusted folder is trusted, one to an untrusted folder is not", () => {
    const repo = project();
    const link = join(home, "link-to-repo");
    symlinkSync(repo, link);
    setFolderTrust(link, true, env);
    expect(Object.keys(readTrustStore(env).folders)).toEqual([repo]);
    expect(folderTrust(repo, { env }).trusted).toBe(true);
    const other = project("other");
    const inside = join(repo, "escape");
    symlinkSync(other, inside);
    expect(folderTrust(inside, { env }).trusted).toBe(false);
  });

  test("a damaged store trusts nothing", () => {
    const repo = project();
    setFolderTrust(repo, true, env);
    writeFileSync(trustStorePath(env), "{ not json");
    expect(folderTrust(repo, { env }).trusted).toBe(false);
  });

  test("the store is private, and forgetting says whether there was a decision", () => {
    const repo = project();
    setFolderTrust(repo, false, env);
    expect(statSync(trustStorePath(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(trustStorePath(env), "utf8")).folders[repo].trusted).toBe(false);
    expect(forgetFolderTrust(repo, env)).toBe(true);
    expect(forgetFolderTrust(repo, env)).toBe(false);
    expect(folderTrust(repo, { env }).source).toBe("default");
  });

  test("OMP_AGENT_DIR moves the store", () => {
    const repo = project();
    const agent = join(home, "elsewhere");
    setFolderTrust(repo, true, { ...env, OMP_AGENT_DIR: agent });
    expect(trustStorePath({ OMP_AGENT_DIR: agent })).toBe(join(agent, "trusted-folders.json"));
    expect(folderTrust(repo, { env: { OMP_AGENT_DIR: agent } }).trusted).toBe(true);
    expect(folderTrust(repo, { env }).trusted).toBe(false);
  });
});

describe("the notice", () => {
  test("nothing skipped, no notice; otherwise one line listing each thing once, with the way to trust", () => {
    const repo = project();
    expect(untrustedNotice(repo)).toBeUndefined();
    noteSkippedForTrust(".env: BASH_ENV");
    noteSkippedForTrust(".omp/config.yml: approvalMode: yolo");
    noteSkippedForTrust(".env: BASH_ENV");
    expect(skippedForTrust()).toEqual([".env: BASH_ENV", ".omp/config.yml: approvalMode: yolo"]);
    const notice = untrustedNotice(repo)!;
    expect(notice).toBe(
      "omp: ~/code/repo is not trusted, so these were skipped: .env: BASH_ENV; .omp/config.yml: approvalMode: yolo. Trust it with `omp trust ~/code/repo` (or --trust for one run).",
    );
    expect(notice.includes("\n")).toBe(false);
  });
});
